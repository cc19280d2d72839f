package dev.tandem.group.watch;

import dev.tandem.testsupport.DomainSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A retry delay of zero or less would tell refused clients to come back at once (gRPC's RetryInfo). */
class WatchPropertiesTest {

    @Test
    void aRetryAfterOfZeroOrLessIsRefusedNamingItsVariable() {
        for (Duration retryAfter : new Duration[]{Duration.ZERO, Duration.ofSeconds(-5)}) {
            assertThatThrownBy(() -> new WatchProperties(null, null, null, retryAfter, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_WATCH_RETRY_AFTER");
        }
    }

    /** 0 watchers was taken for the default, 1,000, where a user meant none. */
    @Test
    void noWatchersIsRefusedNamingItsVariable() {
        assertThatThrownBy(() -> new WatchProperties(null, 0, null, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_WATCH_MAX_WATCHERS");
    }

    @Test
    void eachClientMayHold100WatchesOfThe1000SetByItsVariable() {
        WatchProperties defaults = DomainSettings.bind("tandem.watch", WatchProperties.class);
        assertThat(defaults.maxWatchers()).isEqualTo(1000);
        assertThat(defaults.maxWatchersPerClient()).isEqualTo(100);

        assertThat(DomainSettings.bind("tandem.watch", WatchProperties.class,
                Map.of("TANDEM_WATCH_MAX_WATCHERS_PER_CLIENT", "7")).maxWatchersPerClient()).isEqualTo(7);
    }

    @Test
    void noWatchersPerClientIsRefusedNamingItsVariable() {
        for (int none : new int[]{0, -1}) {
            assertThatThrownBy(() -> new WatchProperties(null, null, none, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("TANDEM_WATCH_MAX_WATCHERS_PER_CLIENT").hasMessageContaining("at least 1");
        }
    }

    /** More per client than the instance serves would be a cap that never applies: a mistake, said at start. */
    @Test
    void moreWatchersPerClientThanPerInstanceIsRefusedNamingBoth() {
        assertThatThrownBy(() -> new WatchProperties(null, 50, 51, null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tandem.watch.max-watchers-per-client (TANDEM_WATCH_MAX_WATCHERS_PER_CLIENT)")
                .hasMessageContaining("tandem.watch.max-watchers (TANDEM_WATCH_MAX_WATCHERS), 50, got 51");
        assertThat(new WatchProperties(null, 50, 50, null, null).maxWatchersPerClient()).as("equal is fine").isEqualTo(50);
    }

    /** Lowering max-watchers alone (a small instance) must not stop the start over a setting nobody made. */
    @Test
    void unsetThePerClientCapFollowsALowerInstanceCap() {
        assertThat(new WatchProperties(null, 40, null, null, null).maxWatchersPerClient()).isEqualTo(40);
        assertThat(DomainSettings.bind("tandem.watch", WatchProperties.class,
                Map.of("TANDEM_WATCH_MAX_WATCHERS", "40")).maxWatchersPerClient()).isEqualTo(40);
    }
}
