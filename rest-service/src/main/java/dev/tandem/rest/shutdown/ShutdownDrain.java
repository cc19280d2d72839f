package dev.tandem.rest.shutdown;

import dev.tandem.shutdown.ShutdownProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The first step of a graceful shutdown: keep serving, but tell balancers and keep-alive clients
 * to go elsewhere, for {@code tandem.shutdown.drain-delay}, before Tomcat stops accepting.
 *
 * <p>Why a step before Tomcat's own graceful shutdown: Tomcat's pauses its connector and closes
 * the listening socket at once, and a request that then arrives on an already open keep-alive
 * connection is answered 503 (Http11Processor, "protocol.isPaused()"), and one that races the
 * close is cut. A balancer needs time to see {@code /actuator/health/readiness} turn
 * OUT_OF_SERVICE (Boot publishes REFUSING_TRAFFIC as the context starts closing, before this
 * listener runs); meanwhile every response carries {@code Connection: close}, so clients drop
 * their pooled connections to this instance instead of sending a next request down one. That
 * includes the responses of requests already in flight as the drain begins, which finish during it
 * or during the grace period: the header goes on when the response is committed
 * ({@link ClosingOnCommitResponse}), not when the request arrives. After
 * the delay the lifecycle continues: Tomcat stops accepting, in-flight requests finish (up to
 * {@code tandem.shutdown.grace-period}), and only then do the cache, Redis and the DataSource close
 * (lower lifecycle phases, then bean destruction), so a request that finishes during shutdown still
 * reaches MariaDB and invalidates the cache.
 *
 * <p>Ordered just after Boot's observation filter (HIGHEST_PRECEDENCE + 1) and outside every filter
 * that may answer a request on its own (the rate limit, the write check, the body check), so that
 * their refusals during the drain close their connections too: innermost, it wrapped only what
 * reached the controllers.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 2)
class ShutdownDrain extends OncePerRequestFilter implements ApplicationListener<ContextClosedEvent> {

    private static final Logger log = LoggerFactory.getLogger(ShutdownDrain.class);

    private final Duration drainDelay;
    private volatile boolean draining;
    /** What each response asks at its commit; one object for all of them. */
    private final BooleanSupplier drainingNow = () -> draining;

    ShutdownDrain(ShutdownProperties shutdown) {
        this.drainDelay = shutdown.drainDelay();
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        draining = true;
        if (drainDelay.isZero()) { // never negative: ShutdownProperties refuses it
            return;
        }
        log.info("Shutting down: readiness is OUT_OF_SERVICE and responses close their connections; "
                + "still serving for {} ms (tandem.shutdown.drain-delay) so that balancers can take this instance out",
                drainDelay.toMillis());
        try {
            Thread.sleep(drainDelay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        // Wrapped whether or not the drain has begun: a request in flight as it begins must still
        // say Connection: close, and its response may be committed any time until it ends.
        ClosingOnCommitResponse closing = new ClosingOnCommitResponse(response, drainingNow);
        closing.beforeCommit();
        try {
            chain.doFilter(request, closing);
        } finally {
            closing.beforeCommit(); // Tomcat commits what the handler left uncommitted after this
        }
    }
}
