package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.SeededRows;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Refresh ahead against the real servers, racing writes: two instances whose every L1 hit on an
 * entry older than a millisecond also refreshes it in the background, with readers keeping the
 * derived entries (pages and leaderboards, of a subject and of all subjects) and a group hot, so
 * that refreshes are in flight around every write. A refresh must never put back what a write made
 * stale: the writer reads its write at once and the other instance within the staleness bound.
 * (L1RefreshAheadTest pins each interleaving on a test ticker, L1 alone.)
 */
class RefreshAheadCoherenceTest {

    /** A refresh on every hit but the first millisecond's: they race every invalidation. */
    private static final List<String> REFRESH_ON_EVERY_HIT = List.of("--tandem.cache.l1.refresh-after=1ms");

    /**
     * Readers on both instances keep the pages and leaderboards of a subject and of all subjects hot
     * (each hit refreshing its entry) while A has a member join and leave a rated group of that
     * subject, a hundred times: after each write returns, A's reads show it, and B's within the bound.
     */
    @Test
    void refreshesInFlightAroundEveryWriteNeverPutBackAnOldPageOrLeaderboard() throws Exception {
        Instance a = Instance.named("hybrid-refresh-every-hit-a", CacheMode.HYBRID, REFRESH_ON_EVERY_HIT);
        Instance b = Instance.named("hybrid-refresh-every-hit-b", CacheMode.HYBRID, REFRESH_ON_EVERY_HIT);
        Instance reference = Instance.reference();
        a.resetData();
        long group = 1;
        String subject = reference.groups.get(group).subject();
        long user = SeededRows.nonMember(reference.jdbc, group);
        Duration bound = b.cache.stalenessBound();
        Function<Instance, Map<String, Object>> reads = i -> Map.of(
                "page", Reads.answer(() -> i.groups.list(subject, 20, "")),
                "all-subjects page", Reads.answer(() -> i.groups.list("", 20, "")),
                "leaderboard", Reads.answer(() -> i.groups.leaderboard(subject, 10)),
                "all-subjects leaderboard", Reads.answer(() -> i.groups.leaderboard("", 100)),
                "group", Reads.answer(() -> i.groups.get(group)));
        long refreshesBefore = refreshes(a) + refreshes(b);

        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<?>> readers = new ArrayList<>();
            for (Instance i : List.of(a, a, b, b)) {
                readers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        try {
                            reads.apply(i);
                        } catch (RuntimeException | Error e) {
                            failures.add(e);
                        }
                    }
                }));
            }
            try {
                for (int n = 0; n < 100; n++) {
                    if (n % 2 == 0) {
                        a.groups.join(group, user);
                    } else {
                        a.groups.leave(group, user);
                    }
                    Map<String, Object> truth = reads.apply(reference);
                    assertThat(reads.apply(a)).as("A after write %d", n).isEqualTo(truth);
                    int write = n;
                    assertThat(Await.within(bound, () -> reads.apply(b).equals(truth)))
                            .as("B within %s of write %d: differs in %s", bound, write,
                                    Reads.differing(reads.apply(b), truth))
                            .isTrue();
                }
            } finally {
                stop.set(true);
                for (Future<?> reader : readers) {
                    reader.get(60, TimeUnit.SECONDS);
                }
            }
        }
        assertThat(failures).as("reader failures").isEmpty();
        long refreshed = refreshes(a) + refreshes(b) - refreshesBefore;
        System.out.printf("[derived refresh race] %d refreshes during 100 writes (A: %s, B: %s)%n", refreshed,
                outcomes(a), outcomes(b));
        assertThat(refreshed).as("refreshes ran around the writes").isPositive();
    }

    private static long refreshes(Instance i) {
        long n = 0;
        for (CacheName<?> cache : List.of(GroupCaches.GROUPS_PAGE, GroupCaches.LEADERBOARD, GroupCaches.GROUP)) {
            for (L1Tier.Refresh outcome : L1Tier.Refresh.values()) {
                n += i.cache.metrics().refreshes(cache, outcome);
            }
        }
        return n;
    }

    private static String outcomes(Instance i) {
        StringBuilder out = new StringBuilder();
        for (L1Tier.Refresh outcome : L1Tier.Refresh.values()) {
            long n = 0;
            for (CacheName<?> cache : i.cache.catalog().all()) {
                n += i.cache.metrics().refreshes(cache, outcome);
            }
            out.append(outcome.tag()).append('=').append(n).append(' ');
        }
        return out.toString().trim();
    }
}
