package dev.tandem.group.watch;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A retry delay of zero or less would tell refused clients to come back at once (gRPC's RetryInfo). */
class WatchPropertiesTest {

    @Test
    void aRetryAfterOfZeroOrLessIsRefusedNamingItsVariable() {
        for (Duration retryAfter : new Duration[]{Duration.ZERO, Duration.ofSeconds(-5)}) {
            assertThatThrownBy(() -> new WatchProperties(null, null, retryAfter, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_WATCH_RETRY_AFTER");
        }
    }

    /** 0 watchers was taken for the default, 1,000, where a user meant none. */
    @Test
    void noWatchersIsRefusedNamingItsVariable() {
        assertThatThrownBy(() -> new WatchProperties(null, 0, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_WATCH_MAX_WATCHERS");
    }
}
