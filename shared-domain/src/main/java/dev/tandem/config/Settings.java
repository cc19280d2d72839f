package dev.tandem.config;

import java.time.Duration;
import java.util.Locale;

/**
 * How a settings record refuses a value at start-up: with the property's name and the environment
 * variable that sets it, so that whoever set it can find it whichever way they did.
 */
public final class Settings {

    private Settings() {
    }

    /** {@code tandem.db.retry-after (TANDEM_DB_RETRY_AFTER)}: the property and its variable (relaxed binding). */
    public static String named(String property) {
        return property + " (" + property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_') + ")";
    }

    /**
     * {@code value}, refused when it is zero or less: each of these is a lifetime, a wait, a bound or
     * a delay a client is told, and none of them means "off" (a retry delay of zero in gRPC's
     * RetryInfo brings refused clients back at once).
     */
    public static Duration requirePositive(Duration value, String property) {
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(named(property) + " must be positive, got " + value);
        }
        return value;
    }
}
