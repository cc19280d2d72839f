package dev.tandem.cache;

import dev.tandem.testsupport.DomainSettings;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * tandem.cache.l1.ttl-jitter: L1 lifetimes are drawn from [ttl × (1 − jitter), ttl], so entries
 * filled at the same instant do not expire in one wave, and the validity bound still wins. L1 alone,
 * on a stopped ticker: every entry below is created at the same instant and its remaining lifetime,
 * read back from Caffeine, is exactly the one it was given.
 */
class L1TtlJitterTest {

    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration NEGATIVE_TTL = Duration.ofSeconds(2);
    private static final CacheCodec<Long> UNUSED = CacheCodec.of(v -> new byte[0], bytes -> 0L);

    /** Values that only a write makes wrong. */
    private static final CacheName<Long> PLAIN = CacheName.keyed("jitter-plain", UNUSED);
    /** Values that stay true for as many seconds as they say. */
    private static final CacheName<Long> TIMED = CacheName.keyed("jitter-timed", UNUSED,
            (seconds, now) -> Optional.of(Duration.ofSeconds(seconds)));

    private static L1Tier l1(double jitter) {
        return new L1Tier(new CacheProperties.L1(100_000, null, TTL, jitter, NEGATIVE_TTL, null),
                Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC),
                CacheCatalog.of(List.of(PLAIN, TIMED)), () -> 0L, Runnable::run, (cache, outcome) -> { });
    }

    /** The lifetimes of {@code count} entries of {@code cache}, all created at the same instant. */
    private static List<Duration> lifetimes(L1Tier l1, CacheName<Long> cache, int count, Optional<Long> value) {
        List<Duration> lifetimes = new ArrayList<>();
        for (long key = 1; key <= count; key++) {
            l1.load(cache, key, () -> value, () -> true);
            lifetimes.add(l1.expiresAfter(cache, key).orElseThrow());
        }
        return lifetimes;
    }

    @Test
    void entriesCreatedTogetherGetDifferentLifetimesWithinTheJitterBand() {
        List<Duration> lifetimes = lifetimes(l1(0.1), PLAIN, 200, Optional.of(7L));

        assertThat(lifetimes).allSatisfy(d -> assertThat(d).isBetween(Duration.ofSeconds(54), TTL));
        assertThat(lifetimes.stream().distinct().count()).as("distinct lifetimes").isGreaterThan(150);
        // Spread over the band, not bunched: 200 uniform draws over 6 s leave no gap this wide at an end.
        assertThat(lifetimes.stream().min(Duration::compareTo).orElseThrow()).isLessThan(Duration.ofSeconds(55));
        assertThat(lifetimes.stream().max(Duration::compareTo).orElseThrow()).isGreaterThan(Duration.ofSeconds(59));
    }

    @Test
    void withoutJitterEveryEntryLivesExactlyTheTtl() {
        assertThat(lifetimes(l1(0), PLAIN, 50, Optional.of(7L))).containsOnly(TTL);
        assertThat(lifetimes(l1(0), PLAIN, 50, Optional.empty())).containsOnly(NEGATIVE_TTL);
    }

    @Test
    void theValidityBoundStillCaps() {
        // 5 s of validity is below the whole band: exactly 5 s, every time.
        assertThat(lifetimes(l1(0.1), TIMED, 50, Optional.of(5L))).containsOnly(Duration.ofSeconds(5));
        // 57 s is inside the band: the shorter of the two, so never above 57 s and sometimes below.
        List<Duration> inBand = lifetimes(l1(0.1), TIMED, 200, Optional.of(57L));
        assertThat(inBand).allSatisfy(d -> assertThat(d).isBetween(Duration.ofSeconds(54), Duration.ofSeconds(57)));
        assertThat(inBand).contains(Duration.ofSeconds(57)).anySatisfy(d -> assertThat(d).isLessThan(Duration.ofSeconds(57)));
    }

    @Test
    void notFoundEntriesAreJitteredBelowTheNegativeTtl() {
        List<Duration> lifetimes = lifetimes(l1(0.1), PLAIN, 200, Optional.empty());

        assertThat(lifetimes).allSatisfy(d -> assertThat(d).isBetween(Duration.ofMillis(1_800), NEGATIVE_TTL));
        assertThat(lifetimes.stream().distinct().count()).as("distinct lifetimes").isGreaterThan(150);
    }

    @Test
    void theJitterIsATypedPropertyDefaultingToATenthThatTheEnvironmentOverrides() {
        assertThat(DomainSettings.bind("tandem.cache", CacheProperties.class).l1().ttlJitter()).isEqualTo(0.1);
        assertThat(DomainSettings.bind("tandem.cache", CacheProperties.class,
                Map.of("TANDEM_CACHE_L1_TTL_JITTER", "0.25")).l1().ttlJitter()).isEqualTo(0.25);
    }

    @Test
    void aJitterOutsideZeroToOneStopsTheServiceFromStarting() {
        for (double jitter : new double[]{-0.1, 1, 1.5}) {
            assertThatThrownBy(() -> new CacheProperties.L1(null, null, null, jitter, null, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tandem.cache.l1.ttl-jitter");
        }
    }
}
