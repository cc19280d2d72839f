package dev.tandem.grpc.server;

import dev.tandem.shutdown.ShutdownProperties;
import io.grpc.protobuf.services.HealthStatusManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

import java.time.Duration;

/**
 * The first step of a graceful shutdown: grpc.health.v1 answers NOT_SERVING (and the actuator
 * readiness on the management port OUT_OF_SERVICE, which Boot publishes as the context starts
 * closing), while calls are still served for {@code tandem.shutdown.drain-delay}, so that
 * health-checking balancers and L4 balancers can take this instance out before it stops accepting.
 *
 * <p>Then Spring gRPC's server lifecycle (the highest phase, so it stops before everything else)
 * calls {@code Server.shutdown()}: every connection gets a GOAWAY (clients open no new streams on
 * it; a round_robin channel moves its calls to the other addresses, and a call that raced the
 * GOAWAY is retried transparently by grpc-java because the server never saw it), the listening
 * socket closes, and in-flight calls get {@code spring.grpc.server.shutdown.grace-period} to
 * finish. The cache, Redis and the DataSource close after that (lower phases, then bean
 * destruction), so a call that finishes during shutdown still reaches MariaDB and invalidates the
 * cache.
 *
 * <p>Boot's own health bean calls {@code enterTerminalState()} only when it is destroyed, after the
 * server has already stopped: too late for a client to learn anything from it.
 */
@Component
class ShutdownDrain implements ApplicationListener<ContextClosedEvent> {

    private static final Logger log = LoggerFactory.getLogger(ShutdownDrain.class);

    private final Duration drainDelay;
    private final ObjectProvider<HealthStatusManager> health;

    ShutdownDrain(ShutdownProperties shutdown, ObjectProvider<HealthStatusManager> health) {
        this.drainDelay = shutdown.drainDelay();
        this.health = health;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        // NOT_SERVING for every service, and it stays so: the periodic update from the actuator
        // health cannot turn it back to SERVING.
        health.ifAvailable(HealthStatusManager::enterTerminalState);
        if (drainDelay.isZero()) { // never negative: ShutdownProperties refuses it
            return;
        }
        log.info("Shutting down: grpc.health.v1 is NOT_SERVING; still serving for {} ms (tandem.shutdown.drain-delay) "
                + "before the server sends GOAWAY and stops accepting", drainDelay.toMillis());
        try {
            Thread.sleep(drainDelay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
