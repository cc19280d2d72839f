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

    /**
     * {@code value}, refused when it is below 1: each of these is a count (entries, clients, rows, a
     * limit), and none of them means "off" or "the default". (Bound as {@code int}, an unset property
     * arrives as 0: a record that wants a default takes an {@code Integer} and replaces null, so that
     * a 0 somebody set is refused rather than quietly made the default.)
     */
    public static int requireAtLeastOne(int value, String property) {
        if (value < 1) {
            throw new IllegalArgumentException(named(property) + " must be at least 1, got " + value);
        }
        return value;
    }
}
