package dev.tandem.db;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** tandem.db and tandem.db.replica: values that would misbehave later stop the service at start, naming their variable. */
class DatabasePropertiesTest {

    /** A retry delay of zero or less would tell clients to come back at once while the database is away (gRPC's RetryInfo). */
    @Test
    void aRetryAfterOfZeroOrLessIsRefusedNamingItsVariable() {
        for (Duration retryAfter : new Duration[]{Duration.ZERO, Duration.ofSeconds(-5)}) {
            assertThatThrownBy(() -> new DatabaseProperties("127.0.0.1", 3306, "tandem", "tandem", "tandem", 20, retryAfter,
                    Duration.ofSeconds(1), null, "mariadb", 10, 11))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_RETRY_AFTER");
        }
    }

    /** The health check's timeout of zero or less was quietly made 1 s (JDBC's isValid reads 0 as no limit). */
    @Test
    void aHealthTimeoutOfZeroOrLessIsRefusedNamingItsVariable() {
        for (Duration healthTimeout : new Duration[]{Duration.ZERO, Duration.ofSeconds(-1)}) {
            assertThatThrownBy(() -> new DatabaseProperties("127.0.0.1", 3306, "tandem", "tandem", "tandem", 20, null,
                    healthTimeout, null, "mariadb", 10, 11))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_HEALTH_TIMEOUT");
        }
    }

    /** Anything but MySQL was taken for MariaDB: a typo failed every read-only transaction on a MySQL replica. */
    @Test
    void aProductOtherThanMariaDbOrMySqlIsRefused() {
        assertThatThrownBy(() -> new DatabaseProperties("127.0.0.1", 3306, "tandem", "tandem", "tandem", 20, null,
                Duration.ofSeconds(1), null, "MySQL8", 8, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_PRODUCT");
        new DatabaseProperties("127.0.0.1", 3306, "tandem", "tandem", "tandem", 20, null, Duration.ofSeconds(1), null, "mysql", 8, 0);
    }

    /** 0 is "no limit" to Hikari: with the replica down every read waited for its deadline instead of falling back. */
    @Test
    void aReplicaConnectionTimeoutBelowHikarisFloorOrAWaitOfZeroIsRefused() {
        assertThatThrownBy(() -> new ReplicaProperties("replica", null, null, null, 4, null, Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_REPLICA_CONNECTION_TIMEOUT");
        assertThatThrownBy(() -> new ReplicaProperties("replica", null, null, null, 4, Duration.ofSeconds(-1), null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_REPLICA_MAX_WAIT");
    }

    /**
     * Hikari refuses a pool of no connections, but from inside the replica's DataSource bean, with a
     * message that names no setting ("Factory method 'replicaDataSource' threw exception with
     * message: maxPoolSize cannot be less than 1", after a chain of Flyway and JPA errors).
     */
    @Test
    void aReplicaPoolOfNoConnectionsIsRefusedNamingItsVariable() {
        for (int poolSize : new int[]{0, -1}) {
            assertThatThrownBy(() -> new ReplicaProperties("replica", null, null, null, poolSize, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_REPLICA_POOL_SIZE");
        }
    }

    /**
     * The replica's breaker: a percentage outside 1-100, an empty window, a minimum beyond the window
     * (Resilience4j would quietly use the window) or an open wait of zero stop the start, naming
     * their variable; unset, each has its default.
     */
    @Test
    void aReplicaBreakerThatCouldNotWorkAsConfiguredIsRefusedNamingItsVariable() {
        for (int threshold : new int[]{0, 101}) {
            assertThatThrownBy(() -> new ReplicaProperties.Breaker(threshold, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("TANDEM_DB_REPLICA_BREAKER_FAILURE_RATE_THRESHOLD");
        }
        assertThatThrownBy(() -> new ReplicaProperties.Breaker(null, 0, 1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_REPLICA_BREAKER_WINDOW");
        assertThatThrownBy(() -> new ReplicaProperties.Breaker(null, 4, 5, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_REPLICA_BREAKER_MINIMUM_CALLS");
        assertThatThrownBy(() -> new ReplicaProperties.Breaker(null, null, null, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_REPLICA_BREAKER_OPEN_WAIT");
        assertThat(new ReplicaProperties("replica", null, null, null, 4, null, null, null).breaker())
                .isEqualTo(new ReplicaProperties.Breaker(50, 10, 5, Duration.ofSeconds(5)));
    }
}
