package dev.tandem.rest.limits;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A request body sent with a Content-Encoding other than identity: 415 with {@code Accept-Encoding:
 * identity} (RFC 9110 15.5.16), problem+json with code INVALID_ARGUMENT as every 415 (RestErrors).
 * The service reads bodies as they are sent; read anyway, a gzipped body would be "not JSON" and a
 * plain one labelled gzip would be applied.
 */
public class UnsupportedContentEncodingException extends ErrorResponseException {

    public UnsupportedContentEncodingException(String encoding) {
        super(HttpStatus.UNSUPPORTED_MEDIA_TYPE, asProblem(encoding), null);
        getHeaders().set(HttpHeaders.ACCEPT_ENCODING, "identity");
    }

    private static ProblemDetail asProblem(String encoding) {
        String shown = encoding.length() > 40 ? encoding.substring(0, 40) + "..." : encoding;
        return ProblemDetail.forStatusAndDetail(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                "a request body is read as sent: Content-Encoding '" + shown + "' is not supported (identity only)");
    }
}
