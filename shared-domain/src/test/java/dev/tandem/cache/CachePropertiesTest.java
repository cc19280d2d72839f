package dev.tandem.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cache duration of zero or less, or an L1 bound of nothing, stops the service from starting,
 * naming the setting and its variable; unset is the documented default. Failed before: zero and below were taken for the
 * default, so TANDEM_CACHE_STALENESS_BOUND=0 promised a second and TANDEM_CACHE_L1_NEGATIVE_TTL=0
 * ("do not remember a not-found") remembered one for two.
 */
class CachePropertiesTest {

    @Test
    void aDurationOfZeroOrLessIsRefusedNamingItsVariable() {
        for (Duration nonsense : new Duration[]{Duration.ZERO, Duration.ofSeconds(-1)}) {
            assertThatThrownBy(() -> new CacheProperties(null, null, null, null, nonsense, null, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_CACHE_STALENESS_BOUND");
            assertThatThrownBy(() -> new CacheProperties.L1(null, null, null, 0.1, nonsense, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_CACHE_L1_NEGATIVE_TTL");
            assertThatThrownBy(() -> new CacheProperties.Log(nonsense, null, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_CACHE_LOG_POLL_INTERVAL");
        }
    }

    /** Zero entries was taken for the default, as zero durations were. */
    @Test
    void aMaximumOfNoEntriesOrNoBytesIsRefused() {
        assertThatThrownBy(() -> new CacheProperties.L1(0, null, null, 0.1, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_CACHE_L1_MAX_ENTRIES");
        assertThatThrownBy(() -> new CacheProperties.L1(null, org.springframework.util.unit.DataSize.ofBytes(0), null, 0.1, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_CACHE_L1_MAX_BYTES");
    }

    /**
     * cache_followers.instance_id is a VARCHAR(100): a longer id (a long pod name, say) started, and then
     * every few seconds the follower's note of itself failed ("Data too long"): a WARN that L1 is not
     * served, and the instance missing from its peers' /actuator/cache.
     */
    @Test
    void anInstanceIdLongerThanItsColumnIsRefusedNamingItsVariable() {
        String longest = "i".repeat(100);
        assertThat(new CacheProperties(null, null, null, null, null, null, longest).instanceId()).isEqualTo(longest);
        assertThatThrownBy(() -> new CacheProperties(null, null, null, null, null, null, longest + "i"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_CACHE_INSTANCE_ID")
                .hasMessageContaining("at most 100 characters");
    }

    @Test
    void unsetIsTheDefault() {
        CacheProperties defaults = new CacheProperties(null, null, null, null, null, null, null);
        assertThat(defaults.stalenessBound()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.l1().negativeTtl()).isEqualTo(Duration.ofSeconds(2));
        assertThat(defaults.log().pollInterval()).isEqualTo(Duration.ofMillis(100));
    }
}
