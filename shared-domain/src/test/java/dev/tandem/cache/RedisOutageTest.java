package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.SeededRows;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis going away and coming back, with two hybrid instances serving throughout: no request
 * fails, the writer always reads its own writes, the other instance sees every write within the
 * bound (L1 stays coherent through the log in MySQL, which needs no Redis), nothing is flushed,
 * and after recovery nothing stale is left anywhere.
 *
 * <p>The Redis these instances use is one of the test's own ({@code .run/redis-outage}, port 16439),
 * so stopping it takes nothing away from the other tests, which may run at the same time in other
 * modules (make test runs the modules side by side) on the shared Redis.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisOutageTest {

    private static final List<Long> GROUPS = List.of(1L, 2L, 11L);
    private static final List<Long> USERS = List.of(1L, 101L);
    private static final List<String> SUBJECTS = List.of("", "algorithms");

    /** Only its Redis is ever started; the pair's MariaDB port goes unused. */
    private final LocalServers servers = LocalServers.onFreePorts("redis-outage");
    private Instance.RedisTarget target;

    @BeforeAll
    void startOwnRedis() {
        servers.start("redis");
        target = new Instance.RedisTarget("redis-outage", List.of("--spring.data.redis.port=" + servers.redisPort));
        Instance.useRedis(target);
    }

    @AfterAll
    void stopOwnRedis() {
        try {
            if (target != null) {
                Instance.closeAndUseDefault(target);
            }
        } finally {
            servers.stop("redis");
        }
    }

    @AfterEach
    void redisIsBack() {
        servers.startStopped();
        Instance.named("hybrid-a", CacheMode.HYBRID).cache.redis().breaker().transitionToClosedState();
        Instance.named("hybrid-b", CacheMode.HYBRID).cache.redis().breaker().transitionToClosedState();
    }

    @Test
    void redisStoppedAndRestartedFailsNoRequestAndLeavesNoStaleRead() throws Exception {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        a.awaitHealthy();
        b.awaitHealthy();
        Reads.all(a, GROUPS, USERS, SUBJECTS);
        Reads.all(b, GROUPS, USERS, SUBJECTS);
        long user = SeededRows.nonMember(a.jdbc, 1);

        // Traffic runs some writes before, during and after the outage; the waits are on those
        // writes (each one checked by the traffic), bounded generously, never on a clock.
        int writesWhileDown;
        long l1HitsWhileDown;
        double flushesBefore;
        List<String> problems;
        int unseen;
        try (FailoverTraffic traffic = new FailoverTraffic(a, b, reference, user, GROUPS, USERS, SUBJECTS)) {
            FailoverTraffic.awaitWrites(traffic, FailoverTraffic.WRITES_PER_PHASE, "writes before the outage");
            flushesBefore = b.flushes();
            long l1HitsBefore = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
            servers.stop("redis");
            int writesBefore = traffic.writes();
            FailoverTraffic.awaitWrites(traffic, writesBefore + FailoverTraffic.WRITES_PER_PHASE, "writes while Redis is down");
            writesWhileDown = traffic.writes() - writesBefore;
            l1HitsWhileDown = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1) - l1HitsBefore;
            servers.start("redis");
            a.awaitHealthy();
            b.awaitHealthy();
            FailoverTraffic.awaitWrites(traffic, traffic.writes() + FailoverTraffic.WRITES_PER_PHASE, "writes after Redis is back");
            problems = traffic.stop();
            unseen = traffic.unpublishedAndUnseen();
        }

        assertThat(problems).isEmpty();
        // Stricter than a failover: B's follower drops its L1 entry from the log, Redis or not, so
        // even a write A could not relay to Redis is seen by B within the bound.
        assertThat(unseen).as("writes B did not see within the bound").isZero();
        assertThat(writesWhileDown).as("writes succeeded while Redis was down").isPositive();
        assertThat(l1HitsWhileDown).as("B kept serving its L1 while Redis was down").isPositive();
        assertThat(b.flushes()).as("no L1 flush").isEqualTo(flushesBefore);
        Map<String, Object> truth = Reads.all(reference, GROUPS, USERS, SUBJECTS);
        assertThat(Reads.all(a, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
        assertThat(Reads.all(b, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
    }

    /**
     * A cannot reach Redis (its breaker is held open) while Redis keeps serving B: A's write
     * commits with its log row, but A cannot relay it, so L2 still holds the old value. A reads its
     * own write (it does not read L2 while it knows of an unrelayed invalidation); B's follower finds
     * the row without a marker and relays it, so within the bound nobody can read the old value —
     * though A never reaches Redis again. Nothing else in L2 is touched (no flush), and A reads L2
     * again once its breaker closes. (Before the log, L2 kept the old value until A was back.)
     *
     * <p>Also when Redis still holds the markers of an earlier log's rows under the numbers A's row
     * takes: a log that restarted (a recreated database) hands its numbers out again, while markers
     * live twice the retention. A marker holds its row's token, so the old one does not stand for
     * A's row. Failed before with them: the followers relayed nothing and L2 kept the old group.
     */
    @ParameterizedTest(name = "markers of an earlier log: {0}")
    @ValueSource(booleans = {false, true})
    void anInvalidationTheWriterCouldNotRelayIsRelayedByAnotherInstance(boolean markersOfAnEarlierLog) {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        a.awaitHealthy();
        b.awaitHealthy();
        GroupView old = b.groups.get(1);
        GroupView other = b.groups.get(2);
        assertThat(b.cache.l2().read(GroupCaches.GROUP, 1L).value).isEqualTo(old);
        double flushesBefore = b.flushes();
        long newest = newestRow(a);
        if (markersOfAnEarlierLog) {
            // under the next numbers (this class's instances alone write to its database's log now)
            for (long seq = newest + 1; seq <= newest + 100; seq++) {
                b.cache.redis().set(b.cache.l2().markerKey(seq), new byte[]{1}, Duration.ofMinutes(5).toMillis());
            }
        }
        try {
            a.cache.redis().breaker().transitionToForcedOpenState();
            a.groups.join(1, SeededRows.nonMember(a.jdbc, 1));
            assertThat(newestRow(a)).as("A's row took one of the next numbers").isBetween(newest + 1, newest + 100);
            GroupView fresh = reference.groups.get(1);
            assertThat(a.cache.l2Readable()).as("A does not read L2 while its relay is pending").isFalse();
            assertThat(a.groups.get(1)).as("A reads its own write").isEqualTo(fresh);

            assertThat(Await.within(b.cache.stalenessBound(), () -> {
                L2Tier.Seen<GroupView> inL2 = b.cache.l2().read(GroupCaches.GROUP, 1L);
                return inL2.value == null || inL2.value.equals(fresh);
            })).as("the old value left L2 within the bound, relayed by another instance").isTrue();
            assertThat(Await.within(b.cache.stalenessBound(), () -> b.groups.get(1).equals(fresh)))
                    .as("B serves the write within the bound").isTrue();
            assertThat(b.cache.metrics().relayedForOthers.count() + relayedByOthers(b))
                    .as("some follower relayed A's row").isPositive();
            assertThat(b.cache.l2().read(GroupCaches.GROUP, 2L).value).as("no flush: other entries stay").isEqualTo(other);
            assertThat(b.flushes()).isEqualTo(flushesBefore);
        } finally {
            a.cache.redis().breaker().transitionToClosedState();
        }
        a.awaitHealthy();
        assertThat(a.cache.l2Readable()).isTrue();
        assertThat(a.groups.get(1)).isEqualTo(reference.groups.get(1));
    }

    /** Rows relayed by the followers of every running instance but {@code b}. */
    private static double relayedByOthers(Instance b) {
        return Instance.runningWithCache().stream().filter(i -> i != b)
                .mapToDouble(i -> i.cache.metrics().relayedForOthers.count()).sum();
    }

    /**
     * An outage that every instance sees, after which Redis still has its data (a network
     * outage, not a restart): A's write cannot be relayed by anyone, and B — which wrote nothing
     * — learns of it from the log and does not read L2 until it has relayed it itself once Redis
     * is back; then it reads L2 again, with no flush.
     */
    @Test
    void afterAnOutageAnInstanceRelaysWhatItMissedBeforeReadingL2Again() {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        GroupView other = b.groups.get(2);
        b.groups.get(1);
        List<Instance> cut = Instance.runningWithCache().stream().filter(i -> i.cache.redis() != null).toList();
        try {
            cut.forEach(i -> i.cache.redis().breaker().transitionToForcedOpenState());
            a.groups.join(1, SeededRows.nonMember(a.jdbc, 1));
            GroupView fresh = reference.groups.get(1);
            assertThat(Await.within(b.cache.stalenessBound(), () -> b.cache.follower().pendingRelays() > 0))
                    .as("B learnt of the unrelayed write from the log").isTrue();
            assertThat(b.cache.l2Readable()).as("B does not read L2 while a relay it knows of is pending").isFalse();
            assertThat(Await.within(b.cache.stalenessBound(), () -> b.groups.get(1).equals(fresh)))
                    .as("B serves the write within the bound (from MySQL); B: %s", b.cache.status()).isTrue();

            b.cache.redis().breaker().transitionToClosedState();
            assertThat(Await.within(Duration.ofSeconds(10), () -> b.cache.l2Readable())).isTrue();
            assertThat(b.cache.l2().read(GroupCaches.GROUP, 1L).value).isIn(null, fresh);
            assertThat(b.groups.get(1)).isEqualTo(fresh);
            assertThat(b.cache.l2().read(GroupCaches.GROUP, 2L).value).as("no flush: other entries stay").isEqualTo(other);
        } finally {
            cut.forEach(i -> i.cache.redis().breaker().transitionToClosedState());
        }
        a.awaitHealthy();
        b.awaitHealthy();
    }

    /**
     * The same outage, longer than the log's retention (3 s for the writer here), and a purge after it: the row of a write
     * made during it stays in the log while an instance still has its relay pending, so it is relayed
     * once Redis is back and L2 does not serve the old group. Before, the writer's purge deleted the
     * row once it was older than the retention, every instance then took the missing row for relayed
     * by someone and dropped it, and L2 served the old group until its time to live ran out.
     */
    @Test
    void aRowWhoseRelayIsPendingOutlivesTheRetentionUntilItIsRelayed() throws Exception {
        Instance reference = Instance.reference();
        // the retention may be no shorter than ten staleness bounds; the numbers below the first row
        // it reads are given up at once, so that its purges run from its start
        Instance writer = Instance.named("hybrid-short-retention", CacheMode.HYBRID,
                List.of("--tandem.cache.log.retention=3s", "--tandem.cache.staleness-bound=300ms",
                        "--tandem.cache.log.hole-timeout=1s"));
        try {
            writer.resetData();
            GroupView old = writer.groups.get(1);
            assertThat(writer.cache.l2().read(GroupCaches.GROUP, 1L).value).as("L2 holds group 1").isEqualTo(old);
            List<Instance> cut = Instance.runningWithCache().stream().filter(i -> i.cache.redis() != null).toList();
            long joined;
            try {
                cut.forEach(i -> i.cache.redis().breaker().transitionToForcedOpenState());
                writer.groups.join(1, SeededRows.nonMember(writer.jdbc, 1));
                joined = newestRow(writer);
                // a newer row: the newest is never purged, whatever its age
                writer.groups.join(2, SeededRows.nonMember(writer.jdbc, 2));
                // A purge of the writer's (every 5 s) once the row is older than its retention: the
                // follower notes itself right after each purge, by the database's clock. The first
                // note past that moment may follow a purge just before it: the second follows one after.
                java.time.LocalDateTime pastRetention = writer.jdbc.sql(
                                "SELECT created_at + INTERVAL 3 SECOND FROM cache_invalidations WHERE seq = ?")
                        .param(joined).query(java.time.LocalDateTime.class).single();
                java.time.LocalDateTime firstNote = Await.value("the writer's first note after the retention",
                        Duration.ofSeconds(30), () -> noteAfter(writer, pastRetention));
                Await.value("a purge of the writer's after the row passed its retention", Duration.ofSeconds(30),
                        () -> noteAfter(writer, firstNote));
                assertThat(writer.cache.follower().pendingRelays()).as("relays pending at the writer").isPositive();
                assertThat(writer.jdbc.sql("SELECT COUNT(*) FROM cache_invalidations WHERE seq = ?").param(joined)
                        .query(Long.class).single()).as("the row whose relay is pending is still in the log").isEqualTo(1L);
            } finally {
                cut.forEach(i -> i.cache.redis().breaker().transitionToClosedState());
            }
            writer.awaitHealthy();
            assertThat(writer.cache.l2().read(GroupCaches.GROUP, 1L).value).as("L2 once Redis is back")
                    .isIn(null, reference.groups.get(1));
        } finally {
            // its 3-s retention would purge rows under the other tests' instances
            writer.close();
        }
    }

    /** The instance's last note in cache_followers if it is later than {@code after}, else null. */
    private static java.time.LocalDateTime noteAfter(Instance i, java.time.LocalDateTime after) {
        return i.jdbc.sql("SELECT last_seen FROM cache_followers WHERE instance_id = ? AND last_seen > ?")
                .params(i.cache.instanceId(), after).query(java.time.LocalDateTime.class).optional().orElse(null);
    }

    private static long newestRow(Instance i) {
        return i.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
    }

    @Test
    void anInstanceStartedWhileRedisIsDownServesFromMySqlAndRecoversByItself() {
        Instance reference = Instance.reference();
        Instance.named("hybrid-a", CacheMode.HYBRID).resetData();
        servers.stop("redis");
        Instance late = Instance.startUnhealthy("hybrid-late", CacheMode.HYBRID);
        // L1 needs only the log, in MySQL: it is served although Redis is down.
        assertThat(Await.within(Duration.ofSeconds(10), late.cache::l1Trusted)).isTrue();
        assertThat(late.cache.l2Readable()).isFalse();
        assertThat(Reads.all(late, GROUPS, USERS, SUBJECTS)).isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        late.groups.join(1, SeededRows.nonMember(late.jdbc, 1));
        assertThat(late.groups.get(1)).isEqualTo(reference.groups.get(1));

        servers.start("redis");
        late.awaitHealthy();
        Instance.awaitQuiet();
        assertThat(Reads.all(late, GROUPS, USERS, SUBJECTS)).isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        long hits = late.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
        late.groups.get(1);
        assertThat(late.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1)).isGreaterThan(hits);
    }
}
