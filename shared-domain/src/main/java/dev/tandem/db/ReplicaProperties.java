package dev.tandem.db;

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
 * @param connectionTimeout how long a read waits for a replica connection before it reads the
 *                          primary instead (kept short: a dead replica must not slow every read down)
 */
@ConfigurationProperties("tandem.db.replica")
public record ReplicaProperties(String host, String url, String user, String password, int poolSize,
                                Duration maxWait, Duration connectionTimeout) {
}
