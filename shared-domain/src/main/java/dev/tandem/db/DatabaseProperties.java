package dev.tandem.db;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code tandem.db.*}: where the primary database is and how the services treat it, documented with
 * its defaults in tandem-domain.yml (which also builds {@code spring.datasource.*} and Hibernate's
 * dialect settings from these). The read replica is {@link ReplicaProperties}, {@code tandem.db.replica.*}.
 *
 * @param host          the primary's host
 * @param port          the primary's port
 * @param name          the database (schema) name
 * @param user          the user the services connect as
 * @param password      its password
 * @param poolSize      connections in the primary's pool
 * @param retryAfter    the delay a client is told to wait (Retry-After, RetryInfo) when the database is unreachable
 * @param healthTimeout how long the "db" health check's ping may take
 * @param dialect       Hibernate's dialect class, set rather than detected (MariaDB reports a MySQL 5.5 version)
 * @param product       MariaDB or MySQL: which SQL the replica's GTID fence uses ({@link GtidDialect})
 * @param majorVersion  the server's major version, for the dialect
 * @param minorVersion  the server's minor version, for the dialect
 */
@ConfigurationProperties("tandem.db")
public record DatabaseProperties(String host, int port, String name, String user, String password, int poolSize,
                                 Duration retryAfter, Duration healthTimeout, String dialect, String product,
                                 int majorVersion, int minorVersion) {

    public DatabaseProperties {
        retryAfter = retryAfter == null ? Duration.ofSeconds(5) : retryAfter;
        Settings.requirePositive(retryAfter, "tandem.db.retry-after");
        // JDBC's isValid takes whole seconds and reads 0 as "no limit": a zero or negative timeout was
        // quietly made 1 s, not what was asked; refused like every other duration.
        healthTimeout = healthTimeout == null ? Duration.ofSeconds(2) : healthTimeout;
        Settings.requirePositive(healthTimeout, "tandem.db.health-timeout");
        // Which SQL the replica's GTID fence speaks: anything but MySQL was taken for MariaDB, so a typo
        // failed every read-only transaction on a MySQL replica instead of the start.
        if (product != null && !product.trim().equalsIgnoreCase("MariaDB") && !product.trim().equalsIgnoreCase("MySQL")) {
            throw new IllegalArgumentException(Settings.named("tandem.db.product") + " must be MariaDB or MySQL, got " + product);
        }
    }
}
