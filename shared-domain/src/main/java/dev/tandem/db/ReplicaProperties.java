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
 * @param breaker           when reads stop trying a failing replica, and for how long
 */
@ConfigurationProperties("tandem.db.replica")
public record ReplicaProperties(String host, String url, String user, String password, int poolSize,
                                Duration maxWait, Duration connectionTimeout, Breaker breaker) {

    /**
     * {@code tandem.db.replica.breaker.*}: the circuit breaker around the replica (see
     * {@link ReplicaRoutingDataSource}). It judges the last {@code window} attempts to reach the
     * replica (a connection and the fence's answer; a replica that answers "behind" answered): once
     * at least {@code minimumCalls} were made and {@code failureRateThreshold} percent of them
     * failed, it opens, and reads go to the primary without trying the replica for {@code openWait};
     * then one read tries it again (half-open), which closes the breaker if the replica answers and
     * opens it again if not.
     *
     * @param failureRateThreshold percent of failed attempts that opens the breaker, 1-100 (default 50)
     * @param window               how many of the latest attempts are judged (default 10)
     * @param minimumCalls         attempts needed before the breaker may open, at most {@code window}
     *                             (default 5)
     * @param openWait             how long reads skip the replica before one tries it again (default 5s)
     */
    public record Breaker(Integer failureRateThreshold, Integer window, Integer minimumCalls, Duration openWait) {

        public Breaker {
            failureRateThreshold = failureRateThreshold == null ? 50 : failureRateThreshold;
            if (failureRateThreshold < 1 || failureRateThreshold > 100) {
                throw new IllegalArgumentException(Settings.named("tandem.db.replica.breaker.failure-rate-threshold")
                        + " must be a percentage from 1 to 100, got " + failureRateThreshold);
            }
            window = Settings.requireAtLeastOne(window == null ? 10 : window, "tandem.db.replica.breaker.window");
            minimumCalls = Settings.requireAtLeastOne(minimumCalls == null ? 5 : minimumCalls,
                    "tandem.db.replica.breaker.minimum-calls");
            // Resilience4j would quietly take the window instead: the breaker could never open as configured.
            if (minimumCalls > window) {
                throw new IllegalArgumentException(Settings.named("tandem.db.replica.breaker.minimum-calls")
                        + " must not exceed tandem.db.replica.breaker.window (" + window + "), got " + minimumCalls);
            }
            openWait = Settings.requirePositive(openWait == null ? Duration.ofSeconds(5) : openWait,
                    "tandem.db.replica.breaker.open-wait");
        }
    }

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
        breaker = breaker == null ? new Breaker(null, null, null, null) : breaker;
    }
}
