package dev.tandem.rest.limits;

import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * A request body above {@code tandem.limits.max-request-bytes}: 413, which RestErrors sends as
 * problem+json with code RESOURCE_EXHAUSTED, what grpc-java answers for a message above its limit.
 * Unchecked, so that thrown from inside the body stream it reaches the exception handlers as it is
 * rather than as an I/O error of the JSON parser.
 */
public class RequestBodyTooLargeException extends ErrorResponseException {

    public RequestBodyTooLargeException(long maxBytes) {
        super(HttpStatus.CONTENT_TOO_LARGE);
        getBody().setDetail("the request body is larger than the limit of " + maxBytes + " bytes");
    }
}
