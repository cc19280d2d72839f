package dev.tandem.cache;

import dev.tandem.testsupport.DomainSettings;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Refresh ahead (L1Tier's class comment): a hit on an entry older than refresh-after reloads it in
 * the background, once, and the reload's result replaces the entry only if nothing invalidated,
 * flushed or refilled it meanwhile and L1 is still trusted. L1 alone, on a ticker the test moves and
 * with the refreshes queued until the test runs them, so every interleaving below is exact.
 */
class L1RefreshAheadTest {

    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration REFRESH_AFTER = Duration.ofSeconds(45);
    private static final CacheCodec<String> UNUSED = CacheCodec.of(v -> new byte[0], bytes -> "");
    private static final CacheName<String> GROUP = CacheName.keyed("refresh-group", UNUSED);
    private static final long KEY = 7;

    private final AtomicLong nanos = new AtomicLong();
    private final Queue<Runnable> refreshes = new ArrayDeque<>();
    private final Map<L1Tier.Refresh, Integer> outcomes = new EnumMap<>(L1Tier.Refresh.class);
    private boolean trusted = true;
    /** What the levels below L1 answer a refresh; each refresh's reload is recorded. */
    private Supplier<Optional<String>> below = () -> Optional.of("v2");
    private final List<Object> reloaded = new ArrayList<>();

    // No jitter, and not-found entries living as long as values, so that only refresh-after decides.
    private final L1Tier l1 = new L1Tier(new CacheProperties.L1(1_000, null, TTL, 0, TTL, REFRESH_AFTER),
            Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC), CacheCatalog.of(List.of(GROUP)),
            nanos::get, refreshes::add, (cache, outcome) -> outcomes.merge(outcome, 1, Integer::sum));

    private final L1Tier.Below levelsBelow = new L1Tier.Below() {
        @Override
        @SuppressWarnings("unchecked")
        public <V> Optional<V> load(CacheName<V> cache, Object key, Supplier<Optional<V>> loader) {
            reloaded.add(key);
            return (Optional<V>) below.get();
        }
    };

    private void fill(String value) {
        l1.load(GROUP, KEY, () -> Optional.ofNullable(value), () -> true);
    }

    /** A reader's L1 lookup, as ReadPath makes it. */
    private Optional<String> read() {
        return l1.getIfPresent(GROUP, KEY, () -> Optional.of("from the reader's loader"), levelsBelow, () -> trusted);
    }

    private void after(Duration elapsed) {
        nanos.addAndGet(elapsed.toNanos());
    }

    private void runRefreshes() {
        for (Runnable r; (r = refreshes.poll()) != null; ) {
            r.run();
        }
    }

    @Test
    void aHitOnADueEntryIsServedFromL1AndReloadsItOnceInTheBackground() {
        fill("v1");
        after(REFRESH_AFTER.minusNanos(1));
        assertThat(read()).contains("v1");
        assertThat(refreshes).as("refreshes before refresh-after").isEmpty();

        after(Duration.ofNanos(1));
        assertThat(read()).as("the reader that finds it due").contains("v1");
        assertThat(read()).as("a reader while the refresh runs").contains("v1");
        assertThat(refreshes).as("one refresh per entry").hasSize(1);

        runRefreshes();
        assertThat(read()).contains("v2");
        assertThat(reloaded).containsExactly(KEY);
        assertThat(outcomes).containsExactly(Map.entry(L1Tier.Refresh.REPLACED, 1));
    }

    @Test
    void theReplacementLivesAFullTtlFromTheRefreshAndIsRefreshedAgainWhenDue() {
        fill("v1");
        after(Duration.ofSeconds(50));
        read();
        runRefreshes();
        assertThat(l1.expiresAfter(GROUP, KEY)).as("a lifetime of its own, not v1's last 10 s").contains(TTL);

        after(Duration.ofSeconds(30));
        below = () -> Optional.of("v3");
        read();
        assertThat(refreshes).as("not due again yet").isEmpty();
        after(Duration.ofSeconds(15));
        read();
        runRefreshes();
        assertThat(read()).contains("v3");
    }

    @Test
    void anInvalidationDuringTheRefreshWinsAndTheKeyIsLoadedAfresh() {
        fill("v1");
        after(REFRESH_AFTER);
        read();
        l1.invalidate(Invalidation.create().add(GROUP, KEY));
        runRefreshes();

        assertThat(l1.getIfPresent(GROUP, KEY)).as("what the invalidation removed stays removed").isNull();
        assertThat(outcomes).containsExactly(Map.entry(L1Tier.Refresh.SUPERSEDED, 1));
    }

    @Test
    void aFillAfterAnInvalidationIsNotOverwrittenByTheOlderRefresh() {
        fill("v1");
        after(REFRESH_AFTER);
        read();
        l1.invalidate(Invalidation.create().add(GROUP, KEY));
        fill("v3 after the write");
        runRefreshes();

        assertThat(read()).contains("v3 after the write");
        assertThat(outcomes).containsExactly(Map.entry(L1Tier.Refresh.SUPERSEDED, 1));
    }

    @Test
    void anInvalidationOfAnotherKeyOfTheSameStripeOnlyCostsTheRefresh() {
        fill("v1");
        after(REFRESH_AFTER);
        read();
        // Counters are striped: a write to any key of the stripe drops the refresh (conservative), the entry stays.
        long sameStripe = KEY + 1;
        while (L1Tier.stripe(sameStripe) != L1Tier.stripe(KEY)) {
            sameStripe++;
        }
        l1.invalidate(Invalidation.create().add(GROUP, sameStripe));
        runRefreshes();

        assertThat(read()).contains("v1");
        assertThat(outcomes).containsExactly(Map.entry(L1Tier.Refresh.SUPERSEDED, 1));
        // Only that refresh: the entry is still current and due, so the hit above started another.
        runRefreshes();
        assertThat(read()).as("refreshed by the next hit").contains("v2");
        assertThat(outcomes).containsEntry(L1Tier.Refresh.REPLACED, 1);
    }

    @Test
    void aFlushDuringTheRefreshWins() {
        fill("v1");
        after(REFRESH_AFTER);
        read();
        l1.flush();
        runRefreshes();

        assertThat(l1.getIfPresent(GROUP, KEY)).isNull();
        assertThat(outcomes).containsExactly(Map.entry(L1Tier.Refresh.SUPERSEDED, 1));
    }

    @Test
    void aRefreshThatEndsWhileL1IsNotTrustedIsDropped() {
        fill("v1");
        after(REFRESH_AFTER);
        read();
        trusted = false;
        runRefreshes();

        assertThat(l1.getIfPresent(GROUP, KEY)).as("the entry as it was").contains("v1");
        assertThat(outcomes).containsExactly(Map.entry(L1Tier.Refresh.SUPERSEDED, 1));

        // Trusted again (the follower caught up; nothing it applied touched the entry), the entry is
        // served and still due: the next hit refreshes it, or it would expire under its readers.
        trusted = true;
        assertThat(read()).contains("v1");
        runRefreshes();
        assertThat(read()).as("refreshed by a hit once L1 is trusted again").contains("v2");
        assertThat(outcomes).containsEntry(L1Tier.Refresh.REPLACED, 1);
    }

    @Test
    void aFailedRefreshLeavesTheEntryAndTheNextHitTriesAgain() {
        fill("v1");
        after(REFRESH_AFTER);
        below = () -> {
            throw new IllegalStateException("the database is down");
        };
        read();
        runRefreshes();
        assertThat(read()).contains("v1");
        assertThat(outcomes).containsExactly(Map.entry(L1Tier.Refresh.FAILED, 1));

        below = () -> Optional.of("v2");
        runRefreshes();
        assertThat(read()).contains("v2");
    }

    @Test
    void aRefreshThatFindsTheGroupGoneStoresNotFound() {
        fill("v1");
        after(REFRESH_AFTER);
        below = Optional::empty;
        read();
        runRefreshes();

        assertThat(l1.getIfPresent(GROUP, KEY)).as("not found, as a load stores it").isNotNull().isEmpty();
    }

    @Test
    void notFoundEntriesAreNeverRefreshed() {
        fill(null);
        after(REFRESH_AFTER.plusSeconds(1));
        assertThat(read()).isEmpty();
        assertThat(refreshes).isEmpty();
    }

    @Test
    void withRefreshAfterZeroNothingIsRefreshed() {
        L1Tier off = new L1Tier(new CacheProperties.L1(1_000, null, TTL, 0, TTL, Duration.ZERO),
                Clock.systemUTC(), CacheCatalog.of(List.of(GROUP)), nanos::get, refreshes::add, (cache, outcome) -> { });
        off.load(GROUP, KEY, () -> Optional.of("v1"), () -> true);
        after(Duration.ofSeconds(59));
        assertThat(off.getIfPresent(GROUP, KEY, () -> Optional.of("x"), levelsBelow, () -> true)).contains("v1");
        assertThat(refreshes).isEmpty();
    }

    @Test
    void refreshAfterIsATypedPropertyDerivedFromTheTtlThatTheEnvironmentOverrides() {
        // Half the shortest lifetime, 60 s x (1 - 0.1).
        assertThat(DomainSettings.bind("tandem.cache", CacheProperties.class).l1().refreshAfter())
                .isEqualTo(Duration.ofSeconds(27));
        assertThat(DomainSettings.bind("tandem.cache", CacheProperties.class,
                Map.of("TANDEM_CACHE_L1_REFRESH_AFTER", "30s")).l1().refreshAfter()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aRefreshAfterNotBelowTheShortestLifetimeOrNegativeStopsTheServiceFromStarting() {
        // 60 s x (1 - 0.1) = 54 s: an entry may be gone before it is due.
        assertThatThrownBy(() -> new CacheProperties.L1(null, null, TTL, 0.1, null, Duration.ofSeconds(54)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tandem.cache.l1.refresh-after").hasMessageContaining("PT54S");
        assertThat(new CacheProperties.L1(null, null, TTL, 0.1, null, Duration.ofSeconds(53)).refreshAfter())
                .isEqualTo(Duration.ofSeconds(53));
        // 0 turns it off; a negative one did too, silently, and now stops the start.
        assertThat(new CacheProperties.L1(null, null, TTL, 0.1, null, Duration.ZERO).refreshAfter()).isZero();
        assertThatThrownBy(() -> new CacheProperties.L1(null, null, TTL, 0.1, null, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TANDEM_CACHE_L1_REFRESH_AFTER");
    }
}
