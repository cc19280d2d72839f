package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log's purge and an instance that starts on a purged log: it follows it at once (the purged
 * numbers below the first row it reads are not holes to wait for), finds the newest row's marker
 * still there, and purges by the database's clock, not its own.
 */
class LogFollowerStartTest {

    @Test
    void aNewInstanceReachesTheNewestRowWithoutWaitingForPurgedNumbersBelowIt() {
        Instance writer = Instance.reference();
        writer.cache.flushAll("test-log-start");
        writer.cache.flushAll("test-log-start");
        long newest = writer.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        // As the retention leaves it: every row below the newest purged, and that one old. (Numbers
        // are not moved on by millions here, as on a long-lived log: the running instances of the
        // other tests would then wait for all of them as holes, which is right for them.)
        writer.jdbc.sql("DELETE FROM cache_invalidations WHERE seq < ?").param(newest).update();
        writer.jdbc.sql("UPDATE cache_invalidations SET created_at = created_at - INTERVAL 1 HOUR").update();

        Instance fresh = Instance.named("fresh-" + System.nanoTime(), CacheMode.HYBRID);

        // Well within tandem.cache.log.hole-timeout (30 s), after which holes are given up anyway.
        Await.until("the new instance's log position to reach the newest row", Duration.ofSeconds(10),
                () -> fresh.cache.logPosition() >= newest);
        assertThat(fresh.cache.follower().holes()).isZero();
        fresh.close();
    }

    /**
     * The log's newest row is never purged, so it outlives a relay marker's fixed time to live (twice
     * the retention and the hole timeout): the followers' purges renew that row's marker, and an
     * instance that starts long after a flush (a seed reset before a read-only bench) does not relay
     * the flush again and empty L2 under everyone. Failed before the renewal: the marker was gone
     * after 11 s here.
     */
    @Test
    void theNewestRowsMarkerLivesAsLongAsTheRowSoANewInstanceDoesNotRelayAnOldFlushAgain() throws Exception {
        // long enough that a purge (every 5 s) comes well within the marker's life (11 s) under load
        Duration retention = Duration.ofSeconds(5);
        Instance writer = Instance.named("hybrid-short-retention-" + System.nanoTime(), CacheMode.HYBRID,
                // the retention may be no shorter than ten staleness bounds; the numbers below the
                // first row it reads are given up at once, so that its purges run from its start
                List.of("--tandem.cache.log.retention=" + retention.toSeconds() + "s", "--tandem.cache.staleness-bound=300ms",
                        "--tandem.cache.log.hole-timeout=1s"));
        try {
            writer.resetData();   // a flush row, the log's newest, its marker set to live 2 × 5 + 1 s
            long flush = writer.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
            writer.groups.get(1);
            assertThat(writer.cache.l2().read(GroupCaches.GROUP, 1L).hit()).as("L2 holds group 1").isTrue();

            // past the marker's time to live and a purge (every 5 s) beyond it; nothing is written meanwhile
            Thread.sleep(retention.multipliedBy(2).plusSeconds(1 + 6).toMillis());
            assertThat(writer.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single())
                    .as("the flush is still the newest row").isEqualTo(flush);
            assertThat(writer.cache.redis().pttl(writer.cache.l2().markerKey(flush))).as("the flush row's marker").isPositive();

            Instance fresh = Instance.named("fresh-after-flush-" + System.nanoTime(), CacheMode.HYBRID);
            // read, not followed past: the numbers below a young first row wait as holes for a while
            Await.until("the new instance to read the flush row", Duration.ofSeconds(10),
                    () -> fresh.cache.follower().highestSeen() >= flush);
            double relayed = fresh.cache.metrics().relayedForOthers.count();
            String status = String.valueOf(fresh.cache.status());
            fresh.close();
            assertThat(relayed).as("rows the new instance relayed; its status: %s", status).isZero();
            assertThat(writer.cache.l2().read(GroupCaches.GROUP, 1L).hit()).as("L2 still holds group 1: %s",
                    writer.cache.l2().read(GroupCaches.GROUP, 1L)).isTrue();
        } finally {
            // its short retention would purge rows under the other tests' instances
            writer.close();
        }
    }

    /**
     * A row written before relay tokens (token 0: by a build from before V3, or by one still running
     * during an upgrade), whose marker holds 1 as such builds wrote it, is taken for relayed as
     * before: an upgrade does not relay every row of the log again (for a flush row, emptying L2
     * under everyone). The row and its marker are written as such a writer would, the marker before
     * the commit makes the row visible. Failed with every marker compared to the row's token: the
     * followers relayed it.
     */
    @Test
    void aRowWrittenBeforeTokensIsNotRelayedAgainWhenItsMarkerIsThere() {
        Instance writer = Instance.named("hybrid-a", CacheMode.HYBRID);
        writer.awaitHealthy();
        double relayedBefore = relayedByAll();
        byte[] targets = Invalidation.create().add(GroupCaches.GROUP, 1L).encode();
        long seq = new TransactionTemplate(writer.context.getBean(PlatformTransactionManager.class)).execute(tx -> {
            writer.jdbc.sql("INSERT INTO cache_invalidations (kind, targets) VALUES (0, ?)").param(targets).update();
            long inserted = writer.jdbc.sql("SELECT LAST_INSERT_ID()").query(Long.class).single();
            writer.cache.redis().set(writer.cache.l2().markerKey(inserted), new byte[]{1}, Duration.ofMinutes(5).toMillis());
            return inserted;
        });
        assertThat(writer.jdbc.sql("SELECT relay_token FROM cache_invalidations WHERE seq = ?").param(seq)
                .query(Long.class).single()).as("the row's token").isZero();

        // A follower's position moves at the end of the pass that read the row, after its relays.
        Await.until("every follower's pass past the row", Duration.ofSeconds(60), () -> Instance.sameTarget().stream()
                .filter(i -> i.cache.follower() != null).allMatch(i -> i.cache.follower().position() >= seq));
        assertThat(relayedByAll()).as("rows the followers relayed for others").isEqualTo(relayedBefore);
    }

    private static double relayedByAll() {
        return Instance.runningWithCache().stream().mapToDouble(i -> i.cache.metrics().relayedForOthers.count()).sum();
    }

    /**
     * The purge's cut-off is the database's clock, as a row's {@code created_at} is. An instance whose
     * clock ran ahead of the database's by more than the retention purged every row it had followed
     * past at its next purge however young, under peers that may not have read them yet (a follower
     * held up for less than the retention does not flush, so it would miss them). Failed before: the
     * older of the two fresh rows was gone at the instance's first purge.
     */
    @Test
    void anInstanceWhoseClockRunsAheadPurgesNoRowYoungerThanTheRetention() {
        Instance writer = Instance.named("local-a", CacheMode.LOCAL); // mode none writes no log rows
        writer.cache.flushAll("test-purge-clock");
        long older = writer.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        writer.cache.flushAll("test-purge-clock"); // the newest row, which no purge deletes
        long newest = writer.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();

        Instance ahead = Instance.withClock("clock-ahead-" + System.nanoTime(), CacheMode.LOCAL,
                // the numbers below the young first row it reads are given up at once, so that it
                // follows past both rows within a pass or two
                List.of("--tandem.cache.log.hole-timeout=1s"),
                Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10))); // the retention is 60 s
        try {
            // It purges in its first pass, then notes how far it had followed when it did.
            Await.until("the instance to note a purge past both rows", Duration.ofSeconds(30),
                    () -> writer.jdbc.sql("SELECT COALESCE(MAX(position), 0) FROM cache_followers WHERE instance_id = ?")
                            .param(ahead.cache.instanceId()).query(Long.class).single() >= newest);
            assertThat(writer.jdbc.sql("SELECT COUNT(*) FROM cache_invalidations WHERE seq = ?").param(older)
                    .query(Long.class).single()).as("the row a second old").isEqualTo(1);
        } finally {
            ahead.close();
        }
    }
}
