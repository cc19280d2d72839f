package dev.tandem.config;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The precision at which the domain keeps time. Whole seconds, because mysql-connector-j reads
 * MariaDB 10.11's version as "5.5.5-10.11" and then drops fractional seconds when it binds a
 * timestamp (MySQL before 5.6.4 had none). Truncating first means a writer returns exactly what
 * the database stored and any later read returns, on MariaDB and MySQL 8 alike.
 */
public final class Timestamps {

    private Timestamps() {
    }

    public static Instant toStoredPrecision(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS);
    }
}
