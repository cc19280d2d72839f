package dev.tandem.deadline;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code tandem.limits.request-timeout} (env {@code TANDEM_LIMITS_REQUEST_TIMEOUT}): the longest a
 * request may run on the server, on both wires; a client's shorter deadline wins.
 */
@ConfigurationProperties("tandem.limits")
public record DeadlineProperties(Duration requestTimeout) {

    public DeadlineProperties {
        if (requestTimeout == null) {
            requestTimeout = Duration.ofSeconds(10);
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("tandem.limits.request-timeout must be positive, got " + requestTimeout);
        }
    }
}
