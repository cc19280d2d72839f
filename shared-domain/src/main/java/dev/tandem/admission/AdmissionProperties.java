package dev.tandem.admission;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code tandem.admission.*}: the concurrency limit in front of the shared service on both wires,
 * documented with its defaults in tandem-domain.yml.
 *
 * @param enabled      false (the default): every request is admitted (no limiter on the path at all)
 * @param algorithm    how the limit moves (see {@link Algorithm})
 * @param initialLimit requests in flight allowed before the algorithm has measured anything
 * @param minLimit     the limit never falls below this, however slow requests get
 * @param maxLimit     nor rises above this, however fast they are
 * @param retryAfter   what a refused client is told to wait (REST Retry-After, gRPC RetryInfo)
 * @param window       how long the adaptive algorithms average latency over before they move the limit
 *                     (at least 100 ms, concurrency-limits' own floor for a window)
 */
@ConfigurationProperties("tandem.admission")
public record AdmissionProperties(Boolean enabled, Algorithm algorithm, Integer initialLimit, Integer minLimit, Integer maxLimit,
                                  Duration retryAfter, Duration window) {

    /** concurrency-limits' WindowedLimit takes no shorter window. */
    public static final Duration SHORTEST_WINDOW = Duration.ofMillis(100);

    /** The limit algorithms of Netflix's concurrency-limits that a server can use unattended. */
    public enum Algorithm {
        /**
         * Gradient2: the limit follows the ratio of the long-run average latency to the last
         * window's, so it shrinks as soon as requests start queueing (latency grows while the work
         * per request does not) and grows back when they stop.
         */
        GRADIENT,
        /** TCP Vegas: the limit follows the estimated queue (in-flight × (1 − min latency ÷ latency)). */
        VEGAS,
        /** A fixed limit of {@code initial-limit}: a plain bulkhead, for tests and for comparison. */
        FIXED
    }

    public AdmissionProperties {
        enabled = enabled != null && enabled;
        algorithm = algorithm == null ? Algorithm.GRADIENT : algorithm;
        // unset is the default; 0 is refused below (it was taken for the default)
        initialLimit = initialLimit == null ? 1000 : initialLimit;
        minLimit = minLimit == null ? 20 : minLimit;
        maxLimit = maxLimit == null ? 1000 : maxLimit;
        retryAfter = retryAfter == null ? Duration.ofSeconds(1) : retryAfter;
        window = window == null ? SHORTEST_WINDOW : window;
        if (minLimit < 1 || minLimit > maxLimit) {
            throw new IllegalArgumentException(Settings.named("tandem.admission.min-limit") + " must be between 1 and max-limit ("
                    + maxLimit + "), got " + minLimit);
        }
        if (algorithm != Algorithm.FIXED && (initialLimit < minLimit || initialLimit > maxLimit)) {
            throw new IllegalArgumentException(Settings.named("tandem.admission.initial-limit") + " must be between min-limit (" + minLimit
                    + ") and max-limit (" + maxLimit + "), got " + initialLimit);
        }
        Settings.requireAtLeastOne(initialLimit, "tandem.admission.initial-limit");
        Settings.requirePositive(retryAfter, "tandem.admission.retry-after");
        if (window.compareTo(SHORTEST_WINDOW) < 0) {
            throw new IllegalArgumentException(Settings.named("tandem.admission.window") + " must be at least " + SHORTEST_WINDOW.toMillis()
                    + " ms (concurrency-limits' shortest window), got " + window.toMillis() + " ms");
        }
    }
}
