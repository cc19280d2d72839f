package dev.tandem.shutdown;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code tandem.shutdown.*}, a graceful shutdown on SIGTERM, the same on both services (defaults in
 * tandem-service.yml): first the service tells balancers it is leaving (readiness OUT_OF_SERVICE;
 * REST answers with {@code Connection: close}, gRPC's health turns NOT_SERVING) while it still
 * serves, then it stops accepting and lets in-flight work finish.
 *
 * @param drainDelay  how long the service keeps serving after it said it is leaving
 * @param gracePeriod how long in-flight requests and calls get once it stops accepting
 */
@ConfigurationProperties("tandem.shutdown")
public record ShutdownProperties(Duration drainDelay, Duration gracePeriod) {

    public ShutdownProperties {
        // tandem-service.yml's defaults, for the domain without the services' settings (tests, make seed).
        // A negative grace period is "wait for ever" to the gRPC server and none to REST's shutdown phase.
        drainDelay = drainDelay == null ? Duration.ofSeconds(2) : drainDelay;
        gracePeriod = gracePeriod == null ? Duration.ofSeconds(30) : gracePeriod;
        requireZeroOrMore(drainDelay, "tandem.shutdown.drain-delay");
        requireZeroOrMore(gracePeriod, "tandem.shutdown.grace-period");
    }

    private static void requireZeroOrMore(Duration value, String property) {
        if (value.isNegative()) {
            throw new IllegalArgumentException(Settings.named(property) + " must be a duration of zero or more, got " + value);
        }
    }
}
