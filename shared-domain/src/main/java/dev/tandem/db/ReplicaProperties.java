package dev.tandem.db;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code tandem.db.replica.*}: a read replica of the primary database (see {@link ReplicaRoutingDataSource}).
 * Bound only when {@code host} is set; a blank host means no replica and one pool, as without this class.
 *
 * @param host              the replica's host (TANDEM_DB_REPLICA_HOST); blank: no replica
 * @param url               the replica's JDBC URL, built in tandem-domain.yml from host, port and name
 * @param user              its user (defaults to the primary's)
 * @param password          its password (defaults to the primary's)
 * @param poolSize          the replica pool's maximum size (defaults to the primary's)
 * @param maxWait           how long a read waits for the replica to apply the primary's position
 *                          before it reads the primary instead
 * @param connectionTimeout how long a read waits for a replica connection, and for the fence's
 *                          answer beyond maxWait, before it reads the primary instead (kept short: a
 *                          dead replica must not slow every read down)
 */
@ConfigurationProperties("tandem.db.replica")
public record ReplicaProperties(String host, String url, String user, String password, int poolSize,
                                Duration maxWait, Duration connectionTimeout) {

    public ReplicaProperties {
        // Hikari takes 0 for "no limit": with the replica down, every read would wait for its
        // request's deadline instead of falling back to the primary; below 250 ms it refuses to start,
        // naming its own setting. A negative wait would be handed to MASTER_GTID_WAIT as it is.
        if (connectionTimeout != null && connectionTimeout.compareTo(Duration.ofMillis(250)) < 0) {
            throw new IllegalArgumentException(Settings.named("tandem.db.replica.connection-timeout")
                    + " must be at least 250ms, got " + connectionTimeout);
        }
        if (maxWait != null) {
            Settings.requirePositive(maxWait, "tandem.db.replica.max-wait");
        }
        // Hikari refuses it too, but from inside the replica's DataSource bean, naming no setting.
        Settings.requireAtLeastOne(poolSize, "tandem.db.replica.pool-size");
    }
}
