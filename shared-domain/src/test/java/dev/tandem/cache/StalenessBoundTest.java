package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * L1 is served only while the instance has read the invalidation log through within the bound; an
 * instance that was held up but missed nothing goes back to serving its L1 as it was, without a flush.
 */
class StalenessBoundTest {

    /**
     * A table lock holds every follower's next read of the log (as a starved thread or a slow
     * database would): B stops serving L1 once the bound has passed, answers from L2 meanwhile, and
     * when the lock goes serves its L1 again — the same entries, since it missed nothing. (Before the
     * log, an instance whose heartbeat came back late flushed its whole L1 on recovery.)
     */
    @Test
    void aFollowerHeldUpBeyondTheBoundStopsServingL1AndResumesWithoutAFlush() throws Exception {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        b.awaitHealthy();
        GroupView truth = reference.groups.get(1);
        assertThat(b.groups.get(1)).isEqualTo(truth);
        assertThat(b.cache.l1().getIfPresent(GroupCaches.GROUP, 1L)).contains(truth);
        double flushesBefore = flushes(b);
        Duration bound = b.cache.stalenessBound();

        try (Connection lock = dataSource(reference).getConnection(); Statement sql = lock.createStatement()) {
            sql.execute("LOCK TABLES cache_invalidations WRITE");
            try {
                assertThat(Await.within(bound.multipliedBy(3), () -> !b.cache.l1Trusted()))
                        .as("B stopped serving L1 once its follower was held up past the bound").isTrue();
                long l1Hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
                long l2Hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L2);
                assertThat(b.groups.get(1)).isEqualTo(truth);
                assertThat(b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1)).isEqualTo(l1Hits);
                assertThat(b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L2)).isEqualTo(l2Hits + 1);
            } finally {
                sql.execute("UNLOCK TABLES");
            }
        }

        assertThat(Await.within(bound.multipliedBy(3), b.cache::l1Trusted)).as("B serves L1 again").isTrue();
        assertThat(flushes(b)).as("no L1 flush: nothing was missed").isEqualTo(flushesBefore);
        assertThat(b.cache.l1().getIfPresent(GroupCaches.GROUP, 1L)).as("the entry is still there").contains(truth);
        long l1Hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
        assertThat(b.groups.get(1)).isEqualTo(truth);
        assertThat(b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1)).isEqualTo(l1Hits + 1);
    }

    /**
     * B's follower connection is killed in MariaDB (KILL): its next pass fails, the pool replaces
     * the connection, and a write made right after is seen by B within the bound — read from the
     * log where B left off, with no L1 flush.
     */
    @Test
    void aKilledLogConnectionIsReplacedAndNothingIsMissed() throws Exception {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        b.awaitHealthy();
        b.groups.get(1);
        double flushesBefore = flushes(b);
        long connection = b.cache.follower().connectionId();
        assertThat(connection).isPositive();

        try (Connection c = dataSource(reference).getConnection(); Statement sql = c.createStatement()) {
            sql.execute("KILL " + connection);
        }
        a.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(a, 1));
        GroupView fresh = reference.groups.get(1);
        assertThat(Await.within(b.cache.stalenessBound(), () -> b.groups.get(1).equals(fresh)))
                .as("B sees the write within the bound").isTrue();
        b.awaitHealthy();
        assertThat(b.cache.follower().connectionId()).as("a new connection").isNotEqualTo(connection);
        assertThat(flushes(b)).isEqualTo(flushesBefore);
    }

    static double flushes(Instance i) {
        return i.cache.metrics().flushCounts().values().stream().mapToDouble(Double::doubleValue).sum();
    }

    static DataSource dataSource(Instance i) {
        return i.context.getBean(DataSource.class);
    }
}
