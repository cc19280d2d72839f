package dev.tandem.db;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A retry delay of zero or less would tell clients to come back at once while the database is away (gRPC's RetryInfo). */
class DatabasePropertiesTest {

    @Test
    void aRetryAfterOfZeroOrLessIsRefusedNamingItsVariable() {
        for (Duration retryAfter : new Duration[]{Duration.ZERO, Duration.ofSeconds(-5)}) {
            assertThatThrownBy(() -> new DatabaseProperties("127.0.0.1", 3306, "tandem", "tandem", "tandem", 20, retryAfter,
                    Duration.ofSeconds(1), null, "mariadb", 10, 11))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_DB_RETRY_AFTER");
        }
    }
}
