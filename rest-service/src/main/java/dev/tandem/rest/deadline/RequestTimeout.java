package dev.tandem.rest.deadline;

import dev.tandem.deadline.RequestDeadline;
import dev.tandem.deadline.RequestDeadlines;
import dev.tandem.error.DomainException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.AsyncHandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.time.Duration;

/**
 * The REST request timeout: each API request runs under a {@link RequestDeadline} of
 * {@code tandem.limits.request-timeout}, or of the client's shorter {@value #HEADER} (milliseconds,
 * an integer from 1 to {@value #MAX_MILLIS}). When it passes, the running SQL statement is cancelled
 * and the answer is 504 problem+json with code DEADLINE_EXCEEDED; nothing was written.
 *
 * <p>A header that is zero, negative, not an integer or above {@value #MAX_MILLIS} is the client's
 * mistake, not a deadline the server missed: 400 INVALID_ARGUMENT naming the header, on every
 * method of every route under /api (OPTIONS and HEAD included), before anything is read or written.
 *
 * <p>An MVC interceptor rather than a servlet filter: what it throws (a malformed header, a
 * deadline that has already passed) goes through RestErrors like every other failure, and the
 * deadline is still bound while RestErrors classifies the failure.
 */
@Configuration(proxyBeanMethods = false)
public class RequestTimeout implements WebMvcConfigurer {

    /** The client's own timeout for this request, in milliseconds. */
    public static final String HEADER = "X-Request-Timeout";
    /** The largest timeout a client may send (nine digits, about 11.6 days); the server's cap applies anyway. */
    public static final long MAX_MILLIS = 999_999_999L;

    private static final String DEADLINE = RequestTimeout.class.getName() + ".deadline";
    private static final String BINDING = RequestTimeout.class.getName() + ".binding";

    private final RequestDeadlines deadlines;

    public RequestTimeout(RequestDeadlines deadlines) {
        this.deadlines = deadlines;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new Interceptor()).addPathPatterns("/api/**");
    }

    static Duration clientTimeout(String header) {
        if (header == null) {
            return null;
        }
        String value = header.strip();
        // At most nine digits: no overflow, and no sign, exponent or fraction gets through.
        if (!value.matches("[0-9]{1,9}") || Long.parseLong(value) < 1) {
            throw DomainException.invalid(HEADER, "must be a timeout in milliseconds, an integer from 1 to "
                    + MAX_MILLIS + ", got '" + value + "'");
        }
        return Duration.ofMillis(Long.parseLong(value));
    }

    private final class Interceptor implements AsyncHandlerInterceptor {

        @Override
        public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
            RequestDeadline deadline = deadlines.open(clientTimeout(request.getHeader(HEADER)));
            if (deadline.expired()) {
                deadline.close();
                // Not bound: afterCompletion does not run for an interceptor whose preHandle threw.
                deadline.throwIfExpired();
            }
            request.setAttribute(DEADLINE, deadline);
            request.setAttribute(BINDING, deadline.bind());
            return true;
        }

        /**
         * A handler that returned a stream (the group watch's SSE) is done as a request: its deadline
         * ends here, so the stream outlives the request timeout, and the binding does not stay on
         * this container thread (afterCompletion does not run after the first dispatch of an async
         * request; it runs after the last, which opens a deadline of its own).
         */
        @Override
        public void afterConcurrentHandlingStarted(HttpServletRequest request, HttpServletResponse response,
                                                   Object handler) {
            afterCompletion(request, response, handler, null);
        }

        @Override
        public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
                                    Exception ex) {
            // Removed as they are closed: an async request's next dispatch opens its own.
            if (request.getAttribute(BINDING) instanceof RequestDeadline.Binding binding) {
                request.removeAttribute(BINDING);
                binding.close();
            }
            if (request.getAttribute(DEADLINE) instanceof RequestDeadline deadline) {
                request.removeAttribute(DEADLINE);
                deadline.close();
            }
        }
    }
}
