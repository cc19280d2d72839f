package dev.tandem.rest.error;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Controller;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Boot's error page, {@code /error}, answered in {@link RestErrors}' problem shape. Tomcat forwards
 * here what failed outside Spring MVC: a status set with {@code sendError} before any handler ran
 * (a TRACE, which Tomcat refuses with 405 itself) or an exception a filter threw. Boot's own
 * controller answered those with its {@code {timestamp, status, error, path}} JSON, not
 * problem+json. The failure is thrown again here, so {@link RestErrors} answers it as it would have
 * inside MVC: a known exception with its own status and wording, anything else 500 INTERNAL with
 * nothing of it passed on.
 */
@Controller
public class ProblemErrorController implements ErrorController {

    @RequestMapping("${server.error.path:${error.path:/error}}")
    public void error(HttpServletRequest request) throws Exception {
        Object failure = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        if (failure instanceof IOException unreadable
                && request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code
                && (code == HttpStatus.REQUEST_TIMEOUT.value() || code == HttpStatus.BAD_REQUEST.value())) {
            // Tomcat could not read the request's body and said so itself (InputBuffer: 408 for a read
            // that timed out, 400 for any other failed read): the client's doing, answered as Tomcat
            // decided. Thrown again as it was, it became a 500 INTERNAL logged as a bug of ours.
            throw new ErrorResponseException(HttpStatusCode.valueOf(code),
                    ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(code), unreadBody(code)), unreadable);
        }
        if (failure instanceof Exception exception) {
            throw exception;
        }
        if (failure instanceof Throwable error) {
            throw new ServletException(error);
        }
        HttpStatusCode status = HttpStatusCode.valueOf(
                request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code ? code : 500);
        throw new ErrorResponseException(status, ProblemDetail.forStatusAndDetail(status, detail(request, status)), null);
    }

    /** Why the body was not read; nothing of the exception (it may name addresses). */
    private static String unreadBody(int code) {
        return code == HttpStatus.REQUEST_TIMEOUT.value()
                ? "the request body did not arrive in time: the server waited tandem.limits.request-timeout "
                        + "for its next bytes; send the whole body the Content-Length declares"
                : "the request body could not be read: the connection failed while it was being sent";
    }

    /** What the status was set with (Tomcat's and the filters' wording carry no request data), else its reason. */
    private static String detail(HttpServletRequest request, HttpStatusCode status) {
        if (request.getAttribute(RequestDispatcher.ERROR_MESSAGE) instanceof String message && !message.isBlank()) {
            return message;
        }
        HttpStatus known = HttpStatus.resolve(status.value());
        return known == null ? "Error " + status.value() : known.getReasonPhrase();
    }
}
