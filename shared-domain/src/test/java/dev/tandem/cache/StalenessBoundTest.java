package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.HeldCarriers;
import dev.tandem.testsupport.SeededRows;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * L1 is served only while the instance has read the invalidation log through within the bound; an
 * instance that was held up but missed nothing goes back to serving its L1 as it was, without a flush.
 */
class StalenessBoundTest {

    /**
     * A table lock holds every follower's next read of the log (as a starved thread or a slow
     * database would): B stops serving L1 once the bound has passed, and reads neither L1 nor L2
     * meanwhile but MySQL, and when the lock goes serves its L1 again — the same entries, since it
     * missed nothing. (Before the log, an instance whose heartbeat came back late flushed its whole
     * L1 on recovery.) Not L2 either: a writer that died between its commit and clearing Redis
     * leaves its old entry there for the followers to clear when they read its log row, and a
     * follower held up past the bound cannot vouch that no such row is waiting. Here the group is
     * changed in MySQL alone while the lock holds, as such a writer leaves it; B answered L2's old
     * entry before (failed: the old name).
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
        double flushesBefore = b.flushes();
        Duration bound = b.cache.stalenessBound();

        try (Connection lock = reference.dataSource().getConnection(); Statement sql = lock.createStatement()) {
            sql.execute("LOCK TABLES cache_invalidations WRITE");
            try {
                assertThat(Await.within(bound.multipliedBy(3), () -> !b.cache.l1Trusted()))
                        .as("B stopped serving L1 once its follower was held up past the bound").isTrue();
                long l1Hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
                long l2Hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L2);
                String renamed = truth.name() + " (Redis not told)";
                reference.jdbc.sql("UPDATE study_groups SET name = ? WHERE id = 1").param(renamed).update();
                try {
                    assertThat(b.groups.get(1).name()).as("what MySQL holds").isEqualTo(renamed);
                } finally {
                    reference.jdbc.sql("UPDATE study_groups SET name = ? WHERE id = 1").param(truth.name()).update();
                }
                assertThat(b.groups.get(1)).isEqualTo(truth);
                assertThat(b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1)).isEqualTo(l1Hits);
                assertThat(b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L2)).as("L2 not read").isEqualTo(l2Hits);
            } finally {
                sql.execute("UNLOCK TABLES");
            }
        }

        assertThat(Await.within(bound.multipliedBy(3), b.cache::l1Trusted)).as("B serves L1 again").isTrue();
        assertThat(b.flushes()).as("no L1 flush: nothing was missed").isEqualTo(flushesBefore);
        assertThat(b.cache.l1().getIfPresent(GroupCaches.GROUP, 1L)).as("the entry is still there").contains(truth);
        long l1Hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
        assertThat(b.groups.get(1)).isEqualTo(truth);
        assertThat(b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1)).isEqualTo(l1Hits + 1);
    }

    /**
     * The follower runs on a platform thread of its own (TieredCache.start), where request load
     * cannot starve it: with every carrier held by virtual threads that never yield, as on an
     * instance whose requests have saturated its CPU, B still reads the log through, takes A's write
     * and keeps serving L1, without a flush. On a virtual thread it would wait for a carrier as long
     * as the hold lasts, and B's position would not move.
     */
    @Test
    void aFollowerReadsTheLogThroughWhileEveryCarrierIsHeld() throws Exception {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        a.resetData();
        b.awaitHealthy();
        assertThat(b.groups.get(1)).as("in B's L1").isNotNull();
        double flushesBefore = b.flushes();
        Duration bound = b.cache.stalenessBound();
        String renamed = "Renamed while the carriers are held";

        try (HeldCarriers ignored = HeldCarriers.hold()) {
            long position = b.cache.logPosition();
            a.groups.update(new GroupChanges(1, new GroupFields(renamed, null, null, 0), Set.of("name"),
                    a.version(1)));
            assertThat(Await.within(bound.multipliedBy(3), () -> b.cache.logPosition() > position))
                    .as("B's follower read A's write while the carriers were held").isTrue();
            assertThat(b.groups.get(1).name()).isEqualTo(renamed);
            assertThat(b.cache.l1Trusted()).as("B serves L1").isTrue();
        }
        assertThat(b.flushes()).as("no L1 flush: nothing was missed").isEqualTo(flushesBefore);
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
        double flushesBefore = b.flushes();
        long connection = b.cache.follower().connectionId();
        assertThat(connection).isPositive();

        try (Connection c = reference.dataSource().getConnection(); Statement sql = c.createStatement()) {
            sql.execute("KILL " + connection);
        }
        a.groups.join(1, SeededRows.nonMember(a.jdbc, 1));
        GroupView fresh = reference.groups.get(1);
        assertThat(Await.within(b.cache.stalenessBound(), () -> b.groups.get(1).equals(fresh)))
                .as("B sees the write within the bound").isTrue();
        b.awaitHealthy();
        assertThat(b.cache.follower().connectionId()).as("a new connection").isNotEqualTo(connection);
        assertThat(b.flushes()).isEqualTo(flushesBefore);
    }

    /**
     * A follower that reads a full batch every pass and still falls behind (more rows a second than
     * it reads) misses nothing as long as the rows it has not read yet are younger than the
     * retention: rows are numbered as they are inserted, so the next one to read is younger than the
     * last one read. It flushed once it had gone retention − bound without catching up, however
     * young its backlog (failed before: a "log-gap" flush). Here it reads at most 1,000 rows a
     * second (a batch a 1-s pass) while 1,250 a second are written for 21 s, longer than its
     * retention less its bound (18 s): it can never catch up, and its backlog grows by a fifth of
     * what is written while it reads at full speed (4 s behind at the end), by half if its passes
     * take half a second more on a loaded machine (10 s), either way younger than the 18 s.
     */
    @Test
    void aFollowerThatStaysBehindButReadsEveryPassFlushesNothing() throws Exception {
        Duration retention = Duration.ofSeconds(20);
        Duration bound = Duration.ofSeconds(2);
        Instance behind = Instance.named("local-behind-" + System.nanoTime(), CacheMode.LOCAL,
                List.of("--tandem.cache.log.poll-interval=1s", "--tandem.cache.staleness-bound=" + bound.toSeconds() + "s",
                        "--tandem.cache.log.retention=" + retention.toSeconds() + "s", "--tandem.cache.log.hole-timeout=1s"));
        try {
            double flushesBefore = behind.flushes();
            long retentionLessBound = retention.minus(bound).toMillis();
            byte[] harmless = Invalidation.create().add(GroupCaches.GROUP, 999_999_999L).encode();
            int perTenth = 125;
            String insert = "INSERT INTO cache_invalidations (kind, targets) VALUES "
                    + String.join(",", Collections.nCopies(perTenth, "(0, ?)"));
            Object[] rows = Collections.nCopies(perTenth, harmless).toArray();
            long longestBehindMillis = 0;
            long end = System.nanoTime() + retention.plusSeconds(1).toNanos();
            for (long next = System.nanoTime(); next - end < 0; next += Duration.ofMillis(100).toNanos()) {
                behind.jdbc.sql(insert).params(rows).update();
                longestBehindMillis = Math.max(longestBehindMillis, behind.cache.follower().lastPassAgeMillis());
                LockSupport.parkNanos(next + Duration.ofMillis(100).toNanos() - System.nanoTime());
            }
            assertThat(longestBehindMillis).as("it went longer than retention - bound without catching up")
                    .isGreaterThan(retentionLessBound);
            long newest = behind.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
            Await.until("it to catch up", Duration.ofSeconds(90), () -> behind.cache.logPosition() >= newest);
            assertThat(behind.flushes()).as("L1 flushes: %s", behind.cache.metrics().flushCounts()).isEqualTo(flushesBefore);
        } finally {
            // its short retention would purge rows under the other tests' instances
            behind.close();
        }
    }
}
