package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.LocalServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis going away and coming back, with two hybrid instances serving throughout: no request
 * fails, the writer always reads its own writes, the other instance sees every write within the
 * bound (L1 stays coherent through the log in MySQL, which needs no Redis), nothing is flushed,
 * and after recovery nothing stale is left anywhere.
 */
class RedisOutageTest {

    private static final List<Long> GROUPS = List.of(1L, 2L, 11L);
    private static final List<Long> USERS = List.of(1L, 101L);
    private static final List<String> SUBJECTS = List.of("", "algorithms");
    /** Writes (each followed by its checks) that the traffic makes in each phase: up, down, up again. */
    private static final int WRITES_PER_PHASE = 5;

    @AfterEach
    void redisIsBack() {
        LocalServers.shared().startStopped();
        Instance.named("hybrid-a", CacheMode.HYBRID).cache.redis().breaker().transitionToClosedState();
        Instance.named("hybrid-b", CacheMode.HYBRID).cache.redis().breaker().transitionToClosedState();
    }

    @Test
    void redisStoppedAndRestartedFailsNoRequestAndLeavesNoStaleRead() throws Exception {
        LocalServers.shared().requireOwn("redis");
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        a.awaitHealthy();
        b.awaitHealthy();
        Reads.all(a, GROUPS, USERS, SUBJECTS);
        Reads.all(b, GROUPS, USERS, SUBJECTS);
        Duration bound = b.cache.stalenessBound();
        long user = TwoInstanceCoherenceTest.firstNonMember(a, 1);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger writes = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        CompletableFuture<Void> traffic = CompletableFuture.runAsync(() -> {
            boolean member = false;
            while (!stop.get()) {
                try {
                    if (member) {
                        a.groups.leave(1, user);
                    } else {
                        a.groups.join(1, user);
                    }
                    member = !member;
                    writes.incrementAndGet();
                    GroupView truth = reference.groups.get(1);
                    if (!a.groups.get(1).equals(truth)) {
                        problems.add("A did not read its own write #" + writes.get());
                    }
                    if (!Await.within(bound, () -> b.groups.get(1).equals(truth))) {
                        problems.add("B did not see write #" + writes.get() + " within " + bound);
                    }
                    Reads.all(a, GROUPS, USERS, SUBJECTS);
                    Reads.all(b, GROUPS, USERS, SUBJECTS);
                } catch (Throwable t) {
                    problems.add("request failed: " + t);
                }
            }
        });

        // Traffic runs some writes before, during and after the outage; the waits are on those
        // writes (each one checked by the loop above), bounded generously, never on a clock.
        awaitWrites(writes, WRITES_PER_PHASE, problems);
        double flushesBefore = StalenessBoundTest.flushes(b);
        long l1HitsBefore = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
        LocalServers.shared().stop("redis");
        int writesBefore = writes.get();
        awaitWrites(writes, writesBefore + WRITES_PER_PHASE, problems);
        int writesWhileDown = writes.get() - writesBefore;
        long l1HitsWhileDown = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1) - l1HitsBefore;
        LocalServers.shared().start("redis");
        a.awaitHealthy();
        b.awaitHealthy();
        awaitWrites(writes, writes.get() + WRITES_PER_PHASE, problems);
        stop.set(true);
        traffic.get(60, TimeUnit.SECONDS);

        assertThat(problems).isEmpty();
        assertThat(writesWhileDown).as("writes succeeded while Redis was down").isPositive();
        assertThat(l1HitsWhileDown).as("B kept serving its L1 while Redis was down").isPositive();
        assertThat(StalenessBoundTest.flushes(b)).as("no L1 flush").isEqualTo(flushesBefore);
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
     */
    @Test
    void anInvalidationTheWriterCouldNotRelayIsRelayedByAnotherInstance() {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        a.awaitHealthy();
        b.awaitHealthy();
        GroupView old = b.groups.get(1);
        GroupView other = b.groups.get(2);
        assertThat(b.cache.l2().read(GroupCaches.GROUP, 1L).value).isEqualTo(old);
        double flushesBefore = StalenessBoundTest.flushes(b);
        try {
            a.cache.redis().breaker().transitionToForcedOpenState();
            a.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(a, 1));
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
            assertThat(StalenessBoundTest.flushes(b)).isEqualTo(flushesBefore);
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
            a.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(a, 1));
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

    @Test
    void anInstanceStartedWhileRedisIsDownServesFromMySqlAndRecoversByItself() {
        LocalServers.shared().requireOwn("redis");
        Instance reference = Instance.reference();
        Instance.named("hybrid-a", CacheMode.HYBRID).resetData();
        LocalServers.shared().stop("redis");
        Instance late = Instance.startUnhealthy("hybrid-late", CacheMode.HYBRID);
        // L1 needs only the log, in MySQL: it is served although Redis is down.
        assertThat(Await.within(Duration.ofSeconds(10), late.cache::l1Trusted)).isTrue();
        assertThat(late.cache.l2Readable()).isFalse();
        assertThat(Reads.all(late, GROUPS, USERS, SUBJECTS)).isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        late.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(late, 1));
        assertThat(late.groups.get(1)).isEqualTo(reference.groups.get(1));

        LocalServers.shared().start("redis");
        late.awaitHealthy();
        Instance.awaitQuiet();
        assertThat(Reads.all(late, GROUPS, USERS, SUBJECTS)).isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        long hits = late.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
        late.groups.get(1);
        assertThat(late.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1)).isGreaterThan(hits);
    }

    /** Waits until the traffic has made {@code count} writes; a bound, not a speed: each write is a few requests. */
    private static void awaitWrites(AtomicInteger writes, int count, Collection<String> problems) {
        Await.until(count + " writes of the traffic (problems so far: " + problems + ")", Duration.ofSeconds(60),
                () -> writes.get() >= count);
    }
}
