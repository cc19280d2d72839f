package dev.tandem.rest.error;

import com.google.rpc.Code;
import dev.tandem.error.DataAccessFailures;
import dev.tandem.error.DomainException;
import dev.tandem.error.DomainProblems;
import dev.tandem.error.ErrorCode;
import dev.tandem.error.FieldViolation;
import dev.tandem.rest.limits.RequestBodyTooLargeException;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponse;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.web.util.WebUtils;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Every failure as an RFC 9457 problem (application/problem+json) carrying the same code as the
 * gRPC wire: {@code code} is the gRPC status name, {@code fieldViolations} are google.rpc.BadRequest's
 * field violations (proto field paths), {@code resource} is google.rpc.ResourceInfo's type and name.
 *
 * <p>Domain failures map through {@link ErrorCode}, the one table both wires share. Failures that
 * Spring MVC detects before the domain is reached (unreadable JSON, a non-numeric id, a wrong
 * method or media type, an unknown route) are client mistakes too; they get the gRPC code that a
 * gRPC server would answer with, or that google/rpc/code.proto pairs with their HTTP status.
 * Anything else is a bug of ours: 500, logged, and nothing about it sent.
 */
@RestControllerAdvice
public class RestErrors extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(RestErrors.class);

    static final String CODE = DomainProblems.CODE;
    static final String FIELD_VIOLATIONS = DomainProblems.FIELD_VIOLATIONS;

    private final DataAccessFailures dataAccessFailures;

    public RestErrors(DataAccessFailures dataAccessFailures) {
        this.dataAccessFailures = dataAccessFailures;
    }

    @ExceptionHandler(DomainException.class)
    ResponseEntity<Object> domain(DomainException e, WebRequest request) {
        ErrorCode code = e.code();
        if (code == ErrorCode.INTERNAL) {
            log.error("Internal error on {}", describe(request), e);
        }
        // The shared builder, so the write filter's refusals (handed here too) and the gRPC
        // service's management port answer in exactly this shape.
        HttpHeaders headers = new HttpHeaders();
        e.retryAfter().ifPresent(delay -> headers.set(HttpHeaders.RETRY_AFTER, retryAfterSeconds(delay)));
        return respond(DomainProblems.of(e), headers, request);
    }

    /** A Retry-After value (see {@link DomainException#wholeSecondsAtLeastOne}). */
    public static String retryAfterSeconds(Duration delay) {
        return String.valueOf(DomainException.wholeSecondsAtLeastOne(delay));
    }

    /** The last resort: whatever it was, the client learns only that it was not its fault. */
    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> unexpected(Exception e, WebRequest request) {
        // The database being down or the deadline passing is no bug: 503 / 504, never 500.
        var dataAccess = dataAccessFailures.classify(e);
        if (dataAccess.isPresent()) {
            return domain(dataAccess.get(), request);
        }
        log.error("Unexpected failure on {}", describe(request), e);
        // Recorded as the request's error, as Spring does for its own 500s, so metrics show the exception.
        request.setAttribute(WebUtils.ERROR_EXCEPTION_ATTRIBUTE, e, RequestAttributes.SCOPE_REQUEST);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
                "the server failed to handle the request; the failure has been logged");
        problem.setProperty(CODE, ErrorCode.INTERNAL.name());
        return respond(problem, new HttpHeaders(), request);
    }

    /**
     * A query parameter Tomcat could not decode (%FF, %C3%28, a lone %): Tomcat decodes parameters
     * only when Spring first asks for one, so its refusal arrives here rather than as its own 400.
     * Its message may quote the undecodable bytes, so it is not passed on.
     */
    @ExceptionHandler(InvalidParameterException.class)
    ResponseEntity<Object> undecodableParameter(InvalidParameterException e, WebRequest request) {
        HttpStatus status = HttpStatus.resolve(e.getErrorCode());
        if (status == null || !status.is4xxClientError()) {
            status = HttpStatus.BAD_REQUEST;
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status,
                "the query string is not valid: every parameter must be percent-encoded UTF-8");
        return handleExceptionInternal(e, problem, new HttpHeaders(), status, request);
    }

    /** Malformed JSON, a wrong JSON type, an unknown field, or no body at all. */
    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException e, HttpHeaders headers,
                                                                  HttpStatusCode status, WebRequest request) {
        // The body could not be read at all (a read that timed out, a connection that failed): Tomcat
        // has already set the answer (sendError 408 or 400, so the response is committed here) and
        // sends it through the error page (ProblemErrorController). Nothing to add, and no warning
        // that the committed response was left alone.
        if (request.getAttribute(RequestDispatcher.ERROR_EXCEPTION, RequestAttributes.SCOPE_REQUEST) instanceof IOException
                && causeOfType(e, IOException.class) != null) {
            log.debug("Request body of {} not read: {}", describe(request), e.getMostSpecificCause().toString());
            return null;
        }
        // The body limit crossed while the parser was reading: 413, however the parser wrapped it.
        RequestBodyTooLargeException tooLarge = causeOfType(e, RequestBodyTooLargeException.class);
        if (tooLarge != null) {
            return handleErrorResponseException(tooLarge, tooLarge.getHeaders(), tooLarge.getStatusCode(), request);
        }
        JsonProblems.Described described = JsonProblems.describe(e);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, described.detail());
        if (!described.violations().isEmpty()) {
            problem.setProperty(FIELD_VIOLATIONS, described.violations());
        }
        return handleExceptionInternal(e, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    /** A path variable or query parameter that does not convert, e.g. /groups/abc or page_size=ten. */
    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException e, HttpHeaders headers,
                                                        HttpStatusCode status, WebRequest request) {
        String field = e instanceof MethodArgumentTypeMismatchException argument ? argument.getName() : e.getPropertyName();
        // (A parameter sent more than once never gets here: SingleValuedParameters refuses it first.)
        String description = "must be " + expected(e.getRequiredType()) + ", got '" + e.getValue() + "'";
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, field + ": " + description);
        problem.setProperty(FIELD_VIOLATIONS, List.of(new FieldViolation(field, description)));
        return handleExceptionInternal(e, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    @Override
    protected ResponseEntity<Object> handleNoHandlerFoundException(NoHandlerFoundException e, HttpHeaders headers,
                                                                   HttpStatusCode status, WebRequest request) {
        return noRoute(e, headers, request);
    }

    @Override
    protected ResponseEntity<Object> handleNoResourceFoundException(NoResourceFoundException e, HttpHeaders headers,
                                                                    HttpStatusCode status, WebRequest request) {
        return noRoute(e, headers, request);
    }

    private ResponseEntity<Object> noRoute(Exception e, HttpHeaders headers, WebRequest request) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND,
                "no route for " + describe(request));
        return handleExceptionInternal(e, problem, headers, HttpStatus.NOT_FOUND, request);
    }

    /**
     * Every framework-detected failure passes through here: it gets its gRPC code and it is always
     * sent as problem+json.
     */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception e, Object body, HttpHeaders headers,
                                                             HttpStatusCode status, WebRequest request) {
        ProblemDetail problem;
        if (body instanceof ProblemDetail detail) {
            problem = detail;
        } else if (e instanceof ErrorResponse described) {
            // Spring's own wording, e.g. "Content-Type 'text/plain' is not supported."
            problem = described.updateAndGetBody(getMessageSource(), LocaleContextHolder.getLocale());
        } else {
            problem = ProblemDetail.forStatusAndDetail(status, HttpStatus.valueOf(status.value()).getReasonPhrase());
        }
        if (status.is5xxServerError()) {
            log.error("Request failed on {}", describe(request), e);
        } else {
            log.debug("Rejected {}: {}", describe(request), e.toString());
        }
        Code code = codeFor(status);
        problem.setProperty(CODE, code.name());
        locate(problem, request);
        // The superclass adds what Spring needs (nothing once the response is committed, the
        // exception recorded for observations on a 500); the body is ours.
        return super.handleExceptionInternal(e, problem, problemHeaders(headers), status, request);
    }

    /**
     * The gRPC code of a framework-detected failure. 405 is UNIMPLEMENTED, what a gRPC server
     * answers for a method it does not have; 406 and 415 are requests a client must change,
     * INVALID_ARGUMENT; 413, 414 and 431 are RESOURCE_EXHAUSTED like a gRPC message or metadata
     * above the server's limits; the rest follow the HTTP mappings listed in google/rpc/code.proto.
     */
    static Code codeFor(HttpStatusCode status) {
        return switch (status.value()) {
            case 400, 406, 415 -> Code.INVALID_ARGUMENT;
            // A body, URI or headers above the limits: what grpc-java answers for a message or
            // metadata above its limits.
            case 413, 414, 431 -> Code.RESOURCE_EXHAUSTED;
            case 401 -> Code.UNAUTHENTICATED;
            case 403 -> Code.PERMISSION_DENIED;
            case 404 -> Code.NOT_FOUND;
            case 405, 501 -> Code.UNIMPLEMENTED;
            case 409 -> Code.ABORTED;
            case 412 -> Code.FAILED_PRECONDITION;
            case 429 -> Code.RESOURCE_EXHAUSTED;
            // The request did not arrive in time (its body stalled): the client's doing, yet what a
            // gRPC call whose request does not arrive by its deadline gets.
            case 408 -> Code.DEADLINE_EXCEEDED;
            case 499 -> Code.CANCELLED;
            case 503 -> Code.UNAVAILABLE;
            case 504 -> Code.DEADLINE_EXCEEDED;
            default -> status.is4xxClientError() ? Code.FAILED_PRECONDITION
                    : status.is5xxServerError() ? Code.INTERNAL : Code.UNKNOWN;
        };
    }

    private static ResponseEntity<Object> respond(ProblemDetail problem, HttpHeaders headers, WebRequest request) {
        locate(problem, request);
        return ResponseEntity.status(problem.getStatus()).headers(problemHeaders(headers)).body(problem);
    }

    /**
     * The problem's {@code instance} is the request's path. Spring fills it in from the request it
     * answers, which for a failure forwarded to the error page ({@link ProblemErrorController}) is
     * {@code /error}: there it is the path the client asked for.
     */
    private static void locate(ProblemDetail problem, WebRequest request) {
        String path = forwardedFrom(request);
        if (problem.getInstance() == null && path != null) {
            try {
                problem.setInstance(URI.create(path));
            } catch (IllegalArgumentException notAUri) {
                // Tomcat let through a character a URI may not hold: leave it as Spring has it.
            }
        }
    }

    /**
     * A preset Content-Type is used as it is, without content negotiation: problem+json even when
     * the client asked only for application/json, or for something we cannot send at all (406).
     */
    private static HttpHeaders problemHeaders(HttpHeaders headers) {
        HttpHeaders out = new HttpHeaders();
        out.putAll(headers);
        out.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return out;
    }

    private static String expected(Class<?> type) {
        if (type == long.class || type == Long.class) {
            return "a 64-bit integer";
        }
        if (type == int.class || type == Integer.class) {
            return "a 32-bit integer";
        }
        return type == null ? "another type" : "a " + type.getSimpleName();
    }

    private static <T extends Throwable> T causeOfType(Throwable e, Class<T> type) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }

    private static String describe(WebRequest request) {
        if (request instanceof NativeWebRequest nativeRequest
                && nativeRequest.getNativeRequest() instanceof HttpServletRequest http) {
            String forwarded = forwardedFrom(request);
            // An error dispatch is a GET (Servlet 6.1): the client's method is in ERROR_METHOD. A
            // stalled POST was logged as "GET /api/v1/users".
            String method = forwarded != null && http.getAttribute(RequestDispatcher.ERROR_METHOD) instanceof String original
                    ? original : http.getMethod();
            return method + " " + (forwarded != null ? forwarded : http.getRequestURI());
        }
        return request.getDescription(false);
    }

    /** The path the client asked for when the failure was forwarded to the error page (the request's is /error); else null. */
    private static String forwardedFrom(WebRequest request) {
        return request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI, RequestAttributes.SCOPE_REQUEST) instanceof String path
                ? path : null;
    }
}
