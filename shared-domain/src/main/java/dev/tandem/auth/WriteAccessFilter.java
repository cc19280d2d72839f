package dev.tandem.auth;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Writes over HTTP need a writer's bearer token ({@link WriteAccess}); reads stay public. Runs before
 * routing, so a refused request reaches no controller or actuator endpoint and changes nothing.
 *
 * <p>A write is any method but GET, HEAD, OPTIONS and TRACE, on any path: the API's
 * POST/PATCH/DELETE under /api/v1, POST and DELETE /actuator/cache (a flush), and whatever write
 * is added later, which is thus protected until someone decides otherwise.
 *
 * <p>The refusal is answered by the context's own exception handling (Spring MVC's
 * HandlerExceptionResolver, the documented way to hand a filter's exception to the
 * {@code @ControllerAdvice}), so it is exactly the problem+json that any other DomainException of the
 * service gets. A 401 carries {@code WWW-Authenticate: Bearer realm="tandem"}, with
 * {@code error="invalid_token"} when a bearer token was sent and refused, and a 403
 * {@code error="insufficient_scope"} (RFC 6750 §3).
 */
public class WriteAccessFilter extends OncePerRequestFilter {

    public static final String REALM = "tandem";

    private static final Set<String> READ_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

    private final WriteAccess writeAccess;
    private final ObjectProvider<HandlerExceptionResolver> exceptionResolver;

    /** {@code exceptionResolver}: the context's "handlerExceptionResolver", looked up per refusal (it may be created later). */
    public WriteAccessFilter(WriteAccess writeAccess, ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
        this.writeAccess = writeAccess;
        this.exceptionResolver = exceptionResolver;
    }

    public static boolean isWrite(String method) {
        return !READ_METHODS.contains(method);
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !writeAccess.enabled() || !isWrite(request.getMethod());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        List<String> authorizations = Collections.list(request.getHeaders(HttpHeaders.AUTHORIZATION));
        try {
            writeAccess.requireWriterFrom(authorizations);
        } catch (DomainException refused) {
            refuse(request, response, refused, WriteAccess.isBearer(WriteAccess.sole(authorizations)));
            return;
        }
        chain.doFilter(request, response);
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, DomainException refused,
                        boolean bearerSent) throws IOException {
        response.setHeader(HttpHeaders.WWW_AUTHENTICATE, challenge(refused.code(), bearerSent));
        HandlerExceptionResolver resolver = exceptionResolver.getIfAvailable();
        ModelAndView handled = resolver == null ? null : resolver.resolveException(request, response, null, refused);
        if (handled == null) {
            // A context without an advice for DomainException: the status and the challenge still hold.
            response.sendError(refused.code().httpStatus(), refused.getMessage());
        }
    }

    /** The WWW-Authenticate challenge of RFC 6750 §3 for a refusal. */
    static String challenge(ErrorCode code, boolean bearerSent) {
        String challenge = "Bearer realm=\"" + REALM + "\"";
        if (code == ErrorCode.PERMISSION_DENIED) {
            return challenge + ", error=\"insufficient_scope\", scope=\"" + DevTokens.WRITE_SCOPE + "\"";
        }
        return bearerSent ? challenge + ", error=\"invalid_token\"" : challenge;
    }
}
