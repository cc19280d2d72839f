package dev.tandem.db;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fence's wait argument. MySQL's WAIT_FOR_EXECUTED_GTID_SET waits without any limit when its
 * timeout is 0 (mysql-server, Gtid_state::wait_for_gtid_set: {@code timeout > 0 ? &abstime : nullptr}),
 * where MariaDB's MASTER_GTID_WAIT returns at once: a positive tandem.db.replica.max-wait must
 * never reach the server as 0, or on MySQL a read would wait for a lagging replica until its
 * request's deadline (and a read without one, for ever) instead of reading the primary.
 */
class GtidDialectTest {

    @Test
    void aPositiveMaxWaitIsAPositiveTimeoutHoweverShort() {
        assertThat(GtidDialect.timeoutSeconds(Duration.ofNanos(500_000))).isEqualTo(0.0005);
        assertThat(GtidDialect.timeoutSeconds(Duration.ofNanos(1))).isPositive();
        assertThat(GtidDialect.timeoutSeconds(Duration.ofMillis(100))).isEqualTo(0.1);
    }
}
