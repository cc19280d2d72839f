package dev.tandem.rest.admission;

import dev.tandem.admission.AdmissionControl;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

import java.io.IOException;

/**
 * Admission control on REST ({@link AdmissionControl}): a request over the instance's concurrency
 * limit is answered 503 problem+json with Retry-After before anything else runs for it.
 *
 * <p>The actuator (on this port) is never limited, so a saturated instance still answers its health
 * probes and its metrics. A request that turns into a stream (an async request: server-sent events)
 * gives its permit back as soon as the stream is set up; streams have their own limit.
 *
 * <p>Ordered right after the rate limit (a client over its own rate takes no permit from the
 * others) and before everything else, so a refusal costs as little as a request can; Boot's
 * observation filter runs before both, so refusals still show in the metrics.
 */
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 6)
public class AdmissionFilter extends OncePerRequestFilter {

    private final AdmissionControl admission;
    private final HandlerExceptionResolver exceptionResolver;
    private final String managementPrefix;

    public AdmissionFilter(AdmissionControl admission,
                           @Qualifier("handlerExceptionResolver") HandlerExceptionResolver exceptionResolver,
                           @Value("${management.endpoints.web.base-path:/actuator}") String managementBasePath) {
        this.admission = admission;
        this.exceptionResolver = exceptionResolver;
        this.managementPrefix = managementBasePath.endsWith("/") ? managementBasePath : managementBasePath + "/";
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !admission.enabled() || request.getRequestURI().startsWith(managementPrefix);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        AdmissionControl.Permit permit = admission.tryAdmit();
        if (permit == null) {
            exceptionResolver.resolveException(request, response, null, admission.refusal());
            return;
        }
        boolean ended = false;
        try {
            chain.doFilter(request, response);
            ended = true;
        } finally {
            if (!ended || request.isAsyncStarted()) {
                permit.ignored();
            } else if (response.getStatus() == HttpServletResponse.SC_SERVICE_UNAVAILABLE
                    || response.getStatus() == HttpServletResponse.SC_GATEWAY_TIMEOUT) {
                // Something further down was the limit (the database, a deadline): shrink.
                permit.dropped();
            } else {
                permit.completed();
            }
        }
    }
}
