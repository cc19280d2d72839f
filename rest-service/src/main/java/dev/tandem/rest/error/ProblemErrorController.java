package dev.tandem.rest.error;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
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

    /** What the status was set with (Tomcat's and the filters' wording carry no request data), else its reason. */
    private static String detail(HttpServletRequest request, HttpStatusCode status) {
        if (request.getAttribute(RequestDispatcher.ERROR_MESSAGE) instanceof String message && !message.isBlank()) {
            return message;
        }
        HttpStatus known = HttpStatus.resolve(status.value());
        return known == null ? "Error " + status.value() : known.getReasonPhrase();
    }
}
