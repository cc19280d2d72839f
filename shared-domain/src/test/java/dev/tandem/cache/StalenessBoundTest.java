package dev.tandem.cache;

import dev.tandem.group.GroupView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** L1 is served only while the instance can confirm, through its own heartbeat, that it hears invalidations. */
class StalenessBoundTest {

    @AfterEach
    void redisIsBack() {
        Servers.restartRedisIfStopped();
    }

    @Test
    void anInstanceStopsServingL1OnceTheBoundHasPassedWithoutItsHeartbeat() throws Exception {
        assumeTrue(Servers.ownsRedis(), "Redis on 16379 was not started by this checkout's scripts/servers.sh");
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        b.awaitHealthy();
        b.groups.get(1);
        assertThat(b.cache.l1().getIfPresent(CacheName.GROUP, 1L)).isNotNull();

        Servers.stopRedis();
        // Nothing sent after this instant can come back, so by stopped + bound L1 is out of use.
        long stopped = System.nanoTime();
        Duration bound = b.cache.stalenessBound();
        Thread.sleep(bound.toMillis());
        while (System.nanoTime() - stopped < bound.toNanos()) {
            Thread.onSpinWait();
        }
        assertThat(b.cache.l1Trusted()).isFalse();

        // A write B cannot hear of: B still answers it, from MySQL, not from its L1 entry.
        a.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(a, 1));
        long l1Hits = b.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1);
        GroupView fresh = reference.groups.get(1);
        assertThat(b.groups.get(1)).isEqualTo(fresh);
        assertThat(b.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1)).isEqualTo(l1Hits);

        double recoveredBefore = b.cache.metrics().flushCounts().getOrDefault("channel-recovered", 0.0);
        Servers.startRedis();
        b.awaitHealthy();
        assertThat(b.cache.metrics().flushCounts().get("channel-recovered")).isGreaterThan(recoveredBefore);
        // The other instances' heartbeats now reveal the messages lost meanwhile (more flushes).
        Instance.awaitQuiet();
        assertThat(b.groups.get(1)).isEqualTo(fresh);
        assertThat(b.groups.get(1)).isEqualTo(fresh);
        assertThat(b.cache.metrics().hits(CacheName.GROUP, CacheMetrics.Level.L1)).isGreaterThan(l1Hits);
    }

    @Test
    void aCutSubscriptionIsNoticedAndL1Flushed() throws Exception {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        b.awaitHealthy();
        double before = b.cache.metrics().flushCounts().getOrDefault("resubscribed", 0.0);
        b.groups.get(1);

        // Every subscriber connection of the test run; Lettuce reconnects and resubscribes.
        assertThat(Servers.killSubscribers(b.redis())).isPositive();
        a.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(a, 1));
        GroupView fresh = reference.groups.get(1);

        assertThat(Servers.await(b.cache.stalenessBound(), () -> b.groups.get(1).equals(fresh)))
                .as("B sees the write made while its subscription was cut, within the bound").isTrue();
        assertThat(Servers.await(Duration.ofSeconds(10),
                () -> b.cache.metrics().flushCounts().getOrDefault("resubscribed", 0.0) > before))
                .as("B noticed the resubscription and flushed L1").isTrue();
        b.awaitHealthy();
        assertThat(b.groups.get(1)).isEqualTo(fresh);
    }
}
