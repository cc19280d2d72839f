package dev.tandem.cache;

import dev.tandem.group.GroupView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Redis going away and coming back, with two hybrid instances serving throughout: no request
 * fails, the writer always reads its own writes, the other instance sees every write within the
 * bound (from MySQL while Redis is gone), and after recovery nothing stale is left anywhere.
 */
class RedisOutageTest {

    private static final List<Long> GROUPS = List.of(1L, 2L, 11L);
    private static final List<Long> USERS = List.of(1L, 101L);
    private static final List<String> SUBJECTS = List.of("", "algorithms");

    @AfterEach
    void redisIsBack() {
        Servers.restartRedisIfStopped();
        Instance.named("hybrid-a", CacheMode.HYBRID).cache.redis().breaker().transitionToClosedState();
        Instance.named("hybrid-b", CacheMode.HYBRID).cache.redis().breaker().transitionToClosedState();
    }

    @Test
    void redisStoppedAndRestartedFailsNoRequestAndLeavesNoStaleRead() throws Exception {
        assumeTrue(Servers.ownsRedis(), "Redis on 16379 was not started by this checkout's scripts/servers.sh");
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
                    if (!Servers.await(bound, () -> b.groups.get(1).equals(truth))) {
                        problems.add("B did not see write #" + writes.get() + " within " + bound);
                    }
                    Reads.all(a, GROUPS, USERS, SUBJECTS);
                    Reads.all(b, GROUPS, USERS, SUBJECTS);
                } catch (Throwable t) {
                    problems.add("request failed: " + t);
                }
            }
        });

        Thread.sleep(1000);
        long bypassesBefore = bypasses(b);
        Servers.stopRedis();
        int writesBefore = writes.get();
        Thread.sleep(3000);
        int writesWhileDown = writes.get() - writesBefore;
        Servers.startRedis();
        a.awaitHealthy();
        b.awaitHealthy();
        Thread.sleep(1000);
        stop.set(true);
        traffic.get(60, TimeUnit.SECONDS);

        assertThat(problems).isEmpty();
        assertThat(writesWhileDown).as("writes succeeded while Redis was down").isPositive();
        assertThat(bypasses(b)).as("B stopped serving L1 while it could not hear invalidations").isGreaterThan(bypassesBefore);
        assertThat(b.cache.metrics().flushCounts()).containsKey("channel-recovered");
        Map<String, Object> truth = Reads.all(reference, GROUPS, USERS, SUBJECTS);
        assertThat(Reads.all(a, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
        assertThat(Reads.all(b, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
    }

    /**
     * A cannot reach Redis (its breaker is held open) while Redis keeps serving B: A's write
     * commits, its tombstone and message are lost, and L2 keeps the old value. A reads its own
     * write (it stops reading L2 it knows may be stale); once A reaches Redis again it deletes the
     * L2 keyspace and has every L1 flushed, after which no instance can read the old value.
     */
    @Test
    void anInvalidationLostToAnUnreachableRedisIsRepairedWhenRedisIsBack() {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        a.awaitHealthy();
        b.awaitHealthy();
        GroupView old = b.groups.get(1);
        assertThat(b.cache.l2().read(CacheName.GROUP, 1L).value).isEqualTo(old);

        a.cache.redis().breaker().transitionToForcedOpenState();
        a.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(a, 1));
        GroupView fresh = reference.groups.get(1);
        assertThat(a.cache.l2Dirty()).isTrue();
        assertThat(b.cache.l2().read(CacheName.GROUP, 1L).value).as("the tombstone was lost").isEqualTo(old);
        assertThat(a.groups.get(1)).as("A reads its own write").isEqualTo(fresh);

        a.cache.redis().breaker().transitionToClosedState();
        a.awaitHealthy();
        assertThat(Servers.await(b.cache.stalenessBound(), () -> b.groups.get(1).equals(fresh))).isTrue();
        L2Tier.Seen<GroupView> inL2 = b.cache.l2().read(CacheName.GROUP, 1L);
        assertThat(inL2.value).isIn(null, fresh);
        assertThat(a.groups.get(1)).isEqualTo(fresh);
    }

    /**
     * An outage that every instance sees, after which Redis still has its data (a network
     * outage, not a restart): A's tombstone is lost, and B — which wrote nothing — must not read
     * the old value from L2 when it is back, even before A is.
     */
    @Test
    void afterAnOutageAnInstanceDeletesL2BeforeReadingItAgain() {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance onlooker = Instance.named("redis-a", CacheMode.REDIS);
        Instance reference = Instance.reference();
        a.resetData();
        GroupView old = b.groups.get(1);
        String key = b.cache.l2().keyedKey(CacheName.GROUP, 1L);
        try {
            a.cache.redis().breaker().transitionToForcedOpenState();
            b.cache.redis().breaker().transitionToForcedOpenState();
            a.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(a, 1));
            GroupView fresh = reference.groups.get(1);
            // Within the bound B may still serve its L1 entry; after it, MySQL.
            assertThat(Servers.await(b.cache.stalenessBound().multipliedBy(2), () -> !b.cache.l1Trusted())).isTrue();
            assertThat(b.groups.get(1)).as("B reads MySQL while cut off").isEqualTo(fresh);
            assertThat(onlooker.cache.l2().read(CacheName.GROUP, 1L).value).as("L2 kept the old value").isEqualTo(old);

            b.cache.redis().breaker().transitionToClosedState();
            assertThat(Servers.await(java.time.Duration.ofSeconds(10), () -> !b.cache.l2Dirty())).isTrue();
            assertThat(onlooker.cache.redis().get(key)).as("B deleted the keyspace").isNull();
            assertThat(b.groups.get(1)).isEqualTo(fresh);
            assertThat(b.cache.l2().read(CacheName.GROUP, 1L).value).isEqualTo(fresh);
        } finally {
            a.cache.redis().breaker().transitionToClosedState();
            b.cache.redis().breaker().transitionToClosedState();
        }
        a.awaitHealthy();
        b.awaitHealthy();
    }

    @Test
    void anInstanceStartedWhileRedisIsDownServesFromMySqlAndRecoversByItself() {
        assumeTrue(Servers.ownsRedis(), "Redis on 16379 was not started by this checkout's scripts/servers.sh");
        Instance reference = Instance.reference();
        Instance.named("hybrid-a", CacheMode.HYBRID).resetData();
        Servers.stopRedis();
        Instance late = Instance.startUnhealthy("hybrid-late", CacheMode.HYBRID);
        assertThat(late.cache.l1Trusted()).isFalse();
        assertThat(Reads.all(late, GROUPS, USERS, SUBJECTS)).isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        late.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(late, 1));
        assertThat(late.groups.get(1)).isEqualTo(reference.groups.get(1));

        Servers.startRedis();
        late.awaitHealthy();
        Instance.awaitQuiet();
        assertThat(Reads.all(late, GROUPS, USERS, SUBJECTS)).isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        long hits = late.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1);
        late.groups.get(1);
        assertThat(late.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1)).isGreaterThan(hits);
    }

    private static long bypasses(Instance i) {
        return Math.round(i.cache.metrics().registry().find(CacheMetrics.L1_BYPASSES).counters().stream()
                .mapToDouble(c -> c.count()).sum());
    }
}
