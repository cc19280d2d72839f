package dev.tandem.rest.ratelimit;

import dev.tandem.auth.WriteAccess;
import dev.tandem.error.DomainException;
import dev.tandem.ratelimit.ClientRateLimiter;
import dev.tandem.rest.server.ActuatorPaths;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

import java.io.IOException;
import java.util.Collections;

/**
 * Asks the shared {@link ClientRateLimiter} about every request but the actuator's (health,
 * metrics and the cache endpoint stay reachable however busy a client is). A refusal is handed to
 * the MVC exception handlers, so it is the problem+json of every other failure: 429,
 * {@code code} RESOURCE_EXHAUSTED and {@code Retry-After} in whole seconds (RestErrors).
 *
 * <p>The client's address is the connection's peer ({@code getRemoteAddr}): behind a proxy that is
 * the proxy, unless server.forward-headers-strategy makes Tomcat take it from X-Forwarded-For
 * (README, "Rate limiting").
 *
 * <p>Ordered after Boot's observation filter, so refusals show in http.server.requests too, and
 * before the write auth and the body limit, so a refused client costs no token check and no body.
 */
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 5)
public class RateLimitFilter extends OncePerRequestFilter {

    private final ClientRateLimiter limiter;
    private final HandlerExceptionResolver exceptionResolver;
    private final ActuatorPaths actuator;

    public RateLimitFilter(ClientRateLimiter limiter,
                           @Qualifier("handlerExceptionResolver") HandlerExceptionResolver exceptionResolver,
                           ActuatorPaths actuator) {
        this.limiter = limiter;
        this.exceptionResolver = exceptionResolver;
        this.actuator = actuator;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        if (!limiter.enabled()) {
            return true;
        }
        return actuator.serves(request);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            limiter.admit(ClientRateLimiter.Wire.REST, authorization(request), request.getRemoteAddr());
        } catch (DomainException refused) {
            if (exceptionResolver.resolveException(request, response, null, refused) == null) {
                // RestErrors failed to write the problem: still the status, never an empty 200.
                response.sendError(refused.code().httpStatus(), refused.getMessage());
            }
            return;
        }
        chain.doFilter(request, response);
    }

    /**
     * The client {@code request} counts as, named as the limit names it whether or not the limit is
     * on: for what else is counted per client (the group watches' per-client cap).
     */
    public static String clientOf(ClientRateLimiter limiter, HttpServletRequest request) {
        return limiter.clientOf(authorization(request), request.getRemoteAddr());
    }

    private static @Nullable String authorization(HttpServletRequest request) {
        return WriteAccess.sole(Collections.list(request.getHeaders(HttpHeaders.AUTHORIZATION)));
    }
}
