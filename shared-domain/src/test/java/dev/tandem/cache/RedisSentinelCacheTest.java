package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.LocalRedisCluster;
import dev.tandem.testsupport.LocalRedisSentinel;
import dev.tandem.testsupport.SeededRows;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache through Redis Sentinel, selected by {@code spring.data.redis.sentinel.master/nodes}
 * alone: one master, one replica and three sentinels of this test run's own on free loopback
 * ports, stopped afterwards even when the test fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisSentinelCacheTest {

    private static final List<Long> GROUPS = List.of(1L, 2L, 11L);
    private static final List<Long> USERS = List.of(1L, 101L);
    private static final List<String> SUBJECTS = List.of("", "algorithms");

    private LocalRedisSentinel sentinel;
    private Instance.RedisTarget target;

    @BeforeAll
    void startSentinel() {
        sentinel = LocalRedisSentinel.start("redis-sentinel-test");
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
     * healthy again (L1 served, breaker closed, L2 readable), and the L2 they fill lives on the new
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
        assertThat(LocalRedisCluster.cli(oldMaster, "EXISTS", a.cache.l2().keyedKey(GroupCaches.GROUP, 1L)).trim())
                .as("L2 lives on the master the sentinels name").isEqualTo("1");
        Reads.all(b, GROUPS, USERS, SUBJECTS);
        long user = SeededRows.nonMember(a.jdbc, 1);
        FailoverTraffic traffic = new FailoverTraffic(a, b, reference, user, GROUPS, USERS, SUBJECTS);
        try {
            FailoverTraffic.awaitWrites(traffic, FailoverTraffic.WRITES_PER_PHASE, "writes before the failover");
            sentinel.failover();
            assertThat(Await.within(Duration.ofSeconds(30), () -> sentinel.currentMasterPort() != oldMaster
                    && LocalRedisSentinel.isMaster(sentinel.currentMasterPort()) && !LocalRedisSentinel.isMaster(oldMaster)))
                    .as("the sentinels promoted the replica").isTrue();
            int writesAtFailover = traffic.writes();
            a.awaitHealthy();
            b.awaitHealthy();
            FailoverTraffic.awaitWrites(traffic, writesAtFailover + FailoverTraffic.WRITES_PER_PHASE, "writes after the failover");
            assertThat(traffic.stop()).isEmpty();
            assertThat(traffic.writes()).as("writes after the failover").isGreaterThan(writesAtFailover);
            System.out.printf("[sentinel failover] master %d -> %d: %d writes, %d unpublished and not seen by B "
                    + "within the bound%n", oldMaster, sentinel.currentMasterPort(), traffic.writes(), traffic.unpublishedAndUnseen());
        } finally {
            traffic.close();
        }
        Map<String, Object> truth = Reads.all(reference, GROUPS, USERS, SUBJECTS);
        assertThat(Reads.all(a, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
        assertThat(Reads.all(b, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
        int newMaster = sentinel.currentMasterPort();
        a.cache.flushAll("test");
        // Bounded waits, not single reads: right after a failover an instance may still re-check
        // the log (and not read L2 meanwhile), and a fill may rightly fail when a re-check's relay
        // replaces the claim it was made over. Each try empties A's L1 first, so that it reads L2
        // again instead of answering from the L1 entry a failed L2 fill left.
        assertThat(Await.within(Duration.ofSeconds(10), () -> {
            a.cache.l1().flush();
            a.groups.get(2);
            return LocalRedisCluster.cli(newMaster, "EXISTS", a.cache.l2().keyedKey(GroupCaches.GROUP, 2L)).trim().equals("1");
        })).as("L2 is filled on the new master").isTrue();
        assertThat(Await.within(Duration.ofSeconds(10), () -> {
            long hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
            b.groups.get(2);
            return b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1) > hits;
        })).as("B serves L1 again").isTrue();
    }
}
