package dev.tandem.cache;

import dev.tandem.group.GroupView;
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
 * The cache suite against a real Redis Cluster (three masters, three replicas, on loopback ports
 * 16681-16686 of this test's own), selected by {@code spring.data.redis.cluster.nodes} alone: the
 * mode parity, two-instance coherence, fill-race and behaviour tests run unchanged as nested
 * subclasses, then a master is killed under traffic, failed over to its replica and restarted.
 * The cluster is started once for all of them and stopped after them, even when they fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class RedisClusterCacheTest {

    static final int FIRST_PORT = 16681;

    private LocalRedisCluster cluster;
    private Instance.RedisTarget target;

    @BeforeAll
    void startCluster() {
        cluster = LocalRedisCluster.start("redis-cluster-test", FIRST_PORT, 3);
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
            for (int master : masters) {
                assertThat(countKeys(master, pattern)).as("cache keys on master %d after the flush", master).isZero();
            }
        }

        private long countKeys(int port, String pattern) {
            String out = LocalRedisCluster.cli(port, "--scan", "--pattern", pattern);
            return out.lines().filter(l -> !l.isBlank()).count();
        }
    }

    @Nested
    @Order(6)
    class Failover {

        private static final List<Long> GROUPS = List.of(1L, 2L, 11L);
        private static final List<Long> USERS = List.of(1L, 101L);
        private static final List<String> SUBJECTS = List.of("", "algorithms");

        /**
         * The master that serves the invalidation channel's slot (the node every message is
         * published from) and a third of the keys is killed under traffic: every request still
         * succeeds, the writer reads its own writes, and the other instance sees within the bound
         * every write whose invalidation the writer could publish (the others are repaired once the
         * writer reaches the new master, as after any outage). Its replica takes over; both
         * instances find the new master, and their caches become healthy again (L1 served, breaker
         * closed, L2 clean), with no stale answer left. The killed node comes back as a replica,
         * and the cache stays coherent.
         */
        @Test
        void aKilledMasterIsFailedOverUnderTrafficWithoutAStaleReadAndTheCacheRecovers() throws Exception {
            Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
            Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
            Instance reference = Instance.reference();
            a.resetData();
            Reads.all(a, GROUPS, USERS, SUBJECTS);
            Reads.all(b, GROUPS, USERS, SUBJECTS);
            long user = TwoInstanceCoherenceTest.firstNonMember(a, 1);
            FailoverTraffic traffic = new FailoverTraffic(a, b, reference, user, GROUPS, USERS, SUBJECTS);
            try {
                Thread.sleep(1000);
                int victim = cluster.masterOf(a.cache.channel().channel());
                Map<Integer, Long> subscribers = new java.util.TreeMap<>();
                for (int port : cluster.runningPorts()) {
                    subscribers.put(port, LocalRedisCluster.cli(port, "CLIENT", "LIST", "TYPE", "pubsub").lines()
                            .filter(l -> !l.isBlank()).count());
                }
                System.out.printf("[cluster failover] killing master %d; subscriber connections per node: %s%n",
                        victim, subscribers);
                double errorsBefore = redisErrors(a);
                cluster.kill(victim);
                int writesBefore = traffic.writes();
                // The replica is promoted once the others agree the master failed (node timeout 1 s).
                assertThat(Servers.await(Duration.ofSeconds(30), () -> masterElsewhere(a, victim)))
                        .as("a replica took over from master %d", victim).isTrue();
                a.awaitHealthy();
                b.awaitHealthy();
                int writesThroughFailover = traffic.writes() - writesBefore;
                assertThat(redisErrors(a)).as("A noticed the dead master").isGreaterThan(errorsBefore);

                cluster.restart(victim);
                cluster.awaitHealthy(Duration.ofSeconds(30));
                assertThat(cluster.isMaster(victim)).as("the restarted node rejoined as a replica").isFalse();
                Thread.sleep(1000);
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
            // wait: its heartbeat may not be back yet, and until then it rightly reads past L1).
            assertThat(Servers.await(Duration.ofSeconds(10), () -> {
                long hits = b.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1);
                b.groups.get(2);
                return b.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1) > hits;
            })).as("B serves L1 again").isTrue();
        }

        /**
         * The node that carries B's subscription dies (a master: its replica takes over; a
         * replica: nothing else changes). B's subscription comes back on a live node (Lettuce
         * reconnects it there; should it keep trying the dead address, B starts a new one once its
         * own heartbeats have not come back for a while), B serves L1 again, and every write of A
         * is seen by B within the bound meanwhile, since B stops serving L1 when its heartbeats
         * stop.
         */
        @Test
        void anInstanceWhoseSubscriptionNodeDiesSubscribesElsewhere() throws Exception {
            Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
            Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
            Instance reference = Instance.reference();
            a.resetData();
            int node = subscriptionNodeOf("hybrid-b-cluster");
            boolean wasMaster = cluster.isMaster(node);
            long user = TwoInstanceCoherenceTest.firstNonMember(a, 1);
            cluster.kill(node);
            try {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                boolean member = false;
                do {
                    if (member) {
                        a.groups.leave(1, user);
                    } else {
                        a.groups.join(1, user);
                    }
                    member = !member;
                    GroupView truth = reference.groups.get(1);
                    assertThat(a.groups.get(1)).as("A reads its own write").isEqualTo(truth);
                    assertThat(Servers.await(b.cache.stalenessBound(), () -> b.groups.get(1).equals(truth)))
                            .as("B sees A's write within the bound").isTrue();
                } while (!(subscribedOnARunningNode("hybrid-b-cluster") && b.cache.l1Trusted())
                        && System.nanoTime() - deadline < 0);
                assertThat(subscribedOnARunningNode("hybrid-b-cluster")).as("B subscribes on a live node").isTrue();
                b.awaitHealthy();
                System.out.printf("[cluster subscription] node %d (%s) with B's subscription killed; B subscribed again%n",
                        node, wasMaster ? "master" : "replica");
            } finally {
                cluster.restart(node);
                cluster.awaitHealthy(Duration.ofSeconds(30));
            }
            a.awaitHealthy();
            b.awaitHealthy();
            b.groups.get(2);
            a.groups.join(2, TwoInstanceCoherenceTest.firstNonMember(a, 2));
            GroupView truth = reference.groups.get(2);
            assertThat(Servers.await(b.cache.stalenessBound(), () -> b.groups.get(2).equals(truth)))
                    .as("B sees A's writes through its new subscription").isTrue();
            assertThat(b.groups.get(1)).isEqualTo(reference.groups.get(1));
        }

        private boolean subscribedOnARunningNode(String clientName) {
            try {
                subscriptionNodeOf(clientName);
                return true;
            } catch (AssertionError e) {
                return false;
            }
        }

        /** The port of the node on which the connection named {@code clientName} subscribes. */
        private int subscriptionNodeOf(String clientName) {
            for (int port : cluster.runningPorts()) {
                if (LocalRedisCluster.cliOrEmpty(port, "CLIENT", "LIST", "TYPE", "pubsub").contains("name=" + clientName + " ")) {
                    return port;
                }
            }
            throw new AssertionError(clientName + " subscribes on no running node");
        }

        private boolean masterElsewhere(Instance a, int victim) {
            try {
                return cluster.masterOf(a.cache.channel().channel()) != victim;
            } catch (AssertionError e) {
                return false;
            }
        }

        private double redisErrors(Instance i) {
            return i.cache.metrics().redisErrorCounts().values().stream().mapToDouble(Number::doubleValue).sum();
        }
    }
}
