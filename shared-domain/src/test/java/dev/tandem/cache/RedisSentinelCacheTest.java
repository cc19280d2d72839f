package dev.tandem.cache;

import dev.tandem.group.GroupView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache through Redis Sentinel, selected by {@code spring.data.redis.sentinel.master/nodes}
 * alone: one master, one replica and three sentinels of this test's own on loopback ports
 * 16690-16694, stopped afterwards even when the test fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisSentinelCacheTest {

    static final int FIRST_PORT = 16690;

    private static final List<Long> GROUPS = List.of(1L, 2L, 11L);
    private static final List<Long> USERS = List.of(1L, 101L);
    private static final List<String> SUBJECTS = List.of("", "algorithms");

    private LocalRedisSentinel sentinel;
    private Instance.RedisTarget target;

    @BeforeAll
    void startSentinel() {
        sentinel = LocalRedisSentinel.start("redis-sentinel-test", FIRST_PORT);
        target = new Instance.RedisTarget("sentinel", List.of(
                "--spring.data.redis.sentinel.master=" + LocalRedisSentinel.MASTER_NAME,
                "--spring.data.redis.sentinel.nodes=" + sentinel.sentinelNodesProperty()));
        Instance.useRedis(target);
    }

    @AfterAll
    void stopSentinel() {
        try {
            if (target != null) {
                Instance.closeAndUseDefault(target);
            }
        } finally {
            if (sentinel != null) {
                sentinel.close();
            }
        }
    }

    /**
     * Two hybrid instances behind Sentinel keep each other's L1 coherent (every write through A is
     * seen by B within the bound), and a SENTINEL FAILOVER under that traffic fails no request and
     * leaves no stale answer: both instances follow the sentinels to the promoted replica and are
     * healthy again (L1 served, breaker closed, L2 clean), and the L2 they fill lives on the new
     * master.
     */
    @Test
    void theCacheWorksThroughSentinelAndSurvivesAFailover() throws Exception {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        int oldMaster = sentinel.currentMasterPort();
        assertThat(Reads.all(a, GROUPS, USERS, SUBJECTS)).isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        assertThat(LocalRedisCluster.cli(oldMaster, "EXISTS", a.cache.l2().keyedKey(CacheName.GROUP, 1L)).trim())
                .as("L2 lives on the master the sentinels name").isEqualTo("1");
        Reads.all(b, GROUPS, USERS, SUBJECTS);
        Duration bound = b.cache.stalenessBound();
        long user = TwoInstanceCoherenceTest.firstNonMember(a, 1);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger unpublishedAndUnseen = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        CompletableFuture<Void> traffic = CompletableFuture.runAsync(() -> {
            boolean member = false;
            while (!stop.get()) {
                try {
                    double failedBefore = a.cache.metrics().invalidationsFailed.count();
                    if (member) {
                        a.groups.leave(1, user);
                    } else {
                        a.groups.join(1, user);
                    }
                    member = !member;
                    writes.incrementAndGet();
                    boolean published = a.cache.metrics().invalidationsFailed.count() == failedBefore;
                    GroupView truth = reference.groups.get(1);
                    if (!a.groups.get(1).equals(truth)) {
                        problems.add("A did not read its own write #" + writes.get());
                    }
                    if (!Servers.await(bound, () -> b.groups.get(1).equals(truth))) {
                        // As on any outage: a write A could not publish is repaired when A
                        // reaches Redis again (it flushes L2 and every L1; checked at the end).
                        if (published) {
                            problems.add("B did not see write #" + writes.get() + " within " + bound);
                        } else {
                            unpublishedAndUnseen.incrementAndGet();
                        }
                    }
                    Reads.all(a, GROUPS, USERS, SUBJECTS);
                    Reads.all(b, GROUPS, USERS, SUBJECTS);
                } catch (Throwable t) {
                    problems.add("request failed: " + t);
                }
            }
        });
        try {
            Thread.sleep(1000);
            assertThat(writes.get()).as("writes before the failover").isPositive();
            sentinel.failover();
            assertThat(Servers.await(Duration.ofSeconds(30), () -> sentinel.currentMasterPort() != oldMaster
                    && LocalRedisSentinel.isMaster(sentinel.currentMasterPort()) && !LocalRedisSentinel.isMaster(oldMaster)))
                    .as("the sentinels promoted the replica").isTrue();
            int writesAtFailover = writes.get();
            a.awaitHealthy();
            b.awaitHealthy();
            Thread.sleep(1000);
            stop.set(true);
            traffic.get(60, TimeUnit.SECONDS);
            assertThat(problems).isEmpty();
            assertThat(writes.get()).as("writes after the failover").isGreaterThan(writesAtFailover);
            System.out.printf("[sentinel failover] master %d -> %d: %d writes, %d unpublished and not seen by B "
                    + "within the bound%n", oldMaster, sentinel.currentMasterPort(), writes.get(), unpublishedAndUnseen.get());
        } finally {
            stop.set(true);
            traffic.get(60, TimeUnit.SECONDS);
        }
        Map<String, Object> truth = Reads.all(reference, GROUPS, USERS, SUBJECTS);
        assertThat(Reads.all(a, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
        assertThat(Reads.all(b, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
        int newMaster = sentinel.currentMasterPort();
        a.cache.flushAll("test");
        a.groups.get(2);
        assertThat(LocalRedisCluster.cli(newMaster, "EXISTS", a.cache.l2().keyedKey(CacheName.GROUP, 2L)).trim())
                .as("L2 is filled on the new master").isEqualTo("1");
        long hits = b.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1);
        b.groups.get(2);
        b.groups.get(2);
        assertThat(b.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1)).as("B serves L1 again")
                .isGreaterThan(hits);
    }
}
