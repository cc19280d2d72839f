package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.LocalRedisCluster;
import dev.tandem.testsupport.SeededRows;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache suite against a real Redis Cluster (three masters, three replicas, on free loopback
 * ports of this test run's own), selected by {@code spring.data.redis.cluster.nodes} alone: the
 * mode parity, two-instance coherence, fill-race and behaviour tests run unchanged as nested
 * subclasses, then a master is killed under traffic, failed over to its replica and restarted.
 * The cluster is started once for all of them and stopped after them, even when they fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class RedisClusterCacheTest {

    private LocalRedisCluster cluster;
    private Instance.RedisTarget target;

    @BeforeAll
    void startCluster() {
        cluster = LocalRedisCluster.start("redis-cluster-test", 3);
        target = new Instance.RedisTarget("cluster", List.of(
                "--spring.data.redis.cluster.nodes=" + cluster.nodesProperty()));
        Instance.useRedis(target);
    }

    @AfterAll
    void stopCluster() {
        try {
            if (target != null) {
                Instance.closeAndUseDefault(target);
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Nested
    @Order(1)
    class ModeParity extends CacheModeParityTest {
    }

    @Nested
    @Order(2)
    class TwoInstanceCoherence extends TwoInstanceCoherenceTest {
    }

    @Nested
    @Order(3)
    class FillRace extends FillRaceTest {
    }

    @Nested
    @Order(4)
    class Behaviour extends CacheBehaviourTest {
    }

    @Nested
    @Order(5)
    class Topology {

        /** The cache really is spread: its keys live on every master, not on one slot. */
        @Test
        void theCacheKeysSpreadOverTheMastersAndAFlushReachesEveryOne() {
            Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
            Instance reference = Instance.reference();
            a.resetData();
            Reads.all(a, CacheModeParityTest.GROUPS, CacheModeParityTest.USERS, CacheModeParityTest.SUBJECTS);
            assertThat(a.cache.redis().cluster()).isTrue();
            String pattern = Instance.keyPrefix() + "*";
            List<Integer> masters = cluster.runningPorts().stream().filter(cluster::isMaster).toList();
            assertThat(masters).hasSize(3);
            for (int master : masters) {
                assertThat(countKeys(master, pattern)).as("cache keys on master %d", master).isPositive();
            }
            assertThat(Reads.all(a, CacheModeParityTest.GROUPS, CacheModeParityTest.USERS, CacheModeParityTest.SUBJECTS))
                    .isEqualTo(Reads.all(reference, CacheModeParityTest.GROUPS, CacheModeParityTest.USERS,
                            CacheModeParityTest.SUBJECTS));

            a.cache.flushAll("test");
            String markers = a.cache.l2().markerKey(0).replaceAll("0$", "");
            for (int master : masters) {
                // Every value, claim and generation is gone; the relay markers stay (see L2Tier.flush).
                assertThat(keys(master, pattern).stream().filter(k -> !k.startsWith(markers)))
                        .as("cache keys on master %d after the flush", master).isEmpty();
            }
        }

        private long countKeys(int port, String pattern) {
            return keys(port, pattern).size();
        }

        private List<String> keys(int port, String pattern) {
            String out = LocalRedisCluster.cli(port, "--scan", "--pattern", pattern);
            return out.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    @Nested
    @Order(6)
    class Failover {

        private static final List<Long> GROUPS = List.of(1L, 2L, 11L);
        private static final List<Long> USERS = List.of(1L, 101L);
        private static final List<String> SUBJECTS = List.of("", "algorithms");

        /**
         * The master that serves the relay markers' slot (where every write's relay ends) and a third
         * of the keys is killed under traffic: every request still succeeds, the writer reads its
         * own writes, and the other instance sees every write within the bound — a write whose relay
         * the dead master swallowed is relayed again from the log by whichever follower finds its
         * marker missing. Its replica takes over; both instances find the new master, and their
         * caches become healthy again (L1 served, breaker closed, L2 readable), with no stale answer
         * left. The killed node comes back as a replica, and the cache stays coherent.
         */
        @Test
        void aKilledMasterIsFailedOverUnderTrafficWithoutAStaleReadAndTheCacheRecovers() throws Exception {
            Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
            Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
            Instance reference = Instance.reference();
            a.resetData();
            Reads.all(a, GROUPS, USERS, SUBJECTS);
            Reads.all(b, GROUPS, USERS, SUBJECTS);
            long user = SeededRows.nonMember(a.jdbc, 1);
            FailoverTraffic traffic = new FailoverTraffic(a, b, reference, user, GROUPS, USERS, SUBJECTS);
            try {
                FailoverTraffic.awaitWrites(traffic, FailoverTraffic.WRITES_PER_PHASE, "writes before the failover");
                // The master of the relay markers' slot: every write's relay ends there.
                int victim = cluster.masterOf(a.cache.l2().markerKey(0));
                System.out.printf("[cluster failover] killing master %d (the relay markers' slot)%n", victim);
                double errorsBefore = redisErrors(a);
                cluster.kill(victim);
                int writesBefore = traffic.writes();
                // The replica is promoted once the others agree the master failed (node timeout 1 s).
                assertThat(Await.within(Duration.ofSeconds(30), () -> masterElsewhere(a, victim)))
                        .as("a replica took over from master %d", victim).isTrue();
                a.awaitHealthy();
                b.awaitHealthy();
                int writesThroughFailover = traffic.writes() - writesBefore;
                assertThat(redisErrors(a)).as("A noticed the dead master").isGreaterThan(errorsBefore);

                cluster.restart(victim);
                cluster.awaitHealthy(Duration.ofSeconds(30));
                assertThat(cluster.isMaster(victim)).as("the restarted node rejoined as a replica").isFalse();
                FailoverTraffic.awaitWrites(traffic, traffic.writes() + FailoverTraffic.WRITES_PER_PHASE, "writes after the node rejoined");
                a.awaitHealthy();
                b.awaitHealthy();
                assertThat(traffic.stop()).isEmpty();
                assertThat(writesThroughFailover).as("writes succeeded through the failover").isPositive();
                System.out.printf("[cluster failover] master %d killed: %d writes until both instances were healthy, "
                        + "%d of them unpublished and not seen by B within the bound%n", victim, writesThroughFailover,
                        traffic.unpublishedAndUnseen());
            } finally {
                traffic.close();
            }
            Map<String, Object> truth = Reads.all(reference, GROUPS, USERS, SUBJECTS);
            assertThat(Reads.all(a, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
            assertThat(Reads.all(b, GROUPS, USERS, SUBJECTS)).isEqualTo(truth);
            // Healthy again means served from L1 again: B's reads become L1 hits (within a bounded
            // wait: a pass of its follower may be late, and until then it rightly reads past L1).
            assertThat(Await.within(Duration.ofSeconds(10), () -> {
                long hits = b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
                b.groups.get(2);
                return b.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1) > hits;
            })).as("B serves L1 again").isTrue();
        }

        /**
         * On a cluster a write's tombstone and its relay marker live on different masters, and each
         * replicates to its replica on its own: a failover of the tombstone's master can lose the
         * tombstone while the marker, on another master, survives. (Simulated here: the value the
         * write tombstoned is put back on its master, which a manual failover then hands, caught up,
         * to its replica.) The marker then says nothing about the row's tombstones, so the re-check
         * that the new topology starts relays every row of the log again, and the old value is not
         * served beyond it.
         */
        @Test
        void aTombstoneLostWhileItsMarkerOnAnotherMasterSurvivesIsRelayedAgainAfterTheFailover() {
            Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
            Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
            Instance reference = Instance.reference();
            a.resetData();
            int markersMaster = cluster.masterOf(a.cache.l2().markerKey(0));
            long group = java.util.stream.LongStream.rangeClosed(1, 50)
                    .filter(id -> cluster.masterOf(a.cache.l2().keyedKey(GroupCaches.GROUP, id)) != markersMaster)
                    .findFirst().orElseThrow();
            String key = a.cache.l2().keyedKey(GroupCaches.GROUP, group);
            GroupView before = a.groups.get(group);
            assertThat(b.groups.get(group)).isEqualTo(before);
            byte[] oldValue = a.cache.redis().get(key);
            long oldTtl = a.cache.redis().pttl(key);
            assertThat(oldValue).as("group %d in L2 before the write", group).isNotNull();

            a.groups.join(group, SeededRows.nonMember(a.jdbc, group));
            assertThat(a.cache.redis().get(key)).as("the write's tombstone replaced the value").isNotEqualTo(oldValue);
            // Both L1s have dropped the group (the bound), and nothing reads it until the re-check.
            Await.sleep(a.cache.stalenessBound().multipliedBy(2).toMillis());
            a.cache.redis().set(key, oldValue, oldTtl);   // the tombstone lost with its master

            long recheckedA = a.cache.follower().rechecksCompleted();
            long recheckedB = b.cache.follower().rechecksCompleted();
            int master = cluster.masterOf(key);
            cluster.failOverTo(cluster.replicaOf(master));
            // Each instance sees the new topology within its refresh period and re-checks the log.
            assertThat(Await.within(Duration.ofSeconds(30), () -> a.cache.follower().rechecksCompleted() > recheckedA
                    && b.cache.follower().rechecksCompleted() > recheckedB))
                    .as("both instances re-checked the log after the failover of master %d", master).isTrue();
            a.awaitHealthy();
            b.awaitHealthy();

            GroupView truth = reference.groups.get(group);
            assertThat(truth).isNotEqualTo(before);
            assertThat(a.groups.get(group)).as("the writer reads its own write").isEqualTo(truth);
            assertThat(b.groups.get(group)).as("the other instance reads the write").isEqualTo(truth);
        }

        private boolean masterElsewhere(Instance a, int victim) {
            try {
                return cluster.masterOf(a.cache.l2().markerKey(0)) != victim;
            } catch (AssertionError e) {
                return false;
            }
        }

        private double redisErrors(Instance i) {
            return i.cache.metrics().redisErrorCounts().values().stream().mapToDouble(Number::doubleValue).sum();
        }
    }
}
