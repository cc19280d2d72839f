package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.testsupport.Await;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** /actuator/cache as the bench uses it: flush and reset, read some, read the counters. */
class CacheEndpointTest {

    @Test
    @SuppressWarnings("unchecked")
    void flushResetsCountersAndEmptiesBothLevelsThenCountsHitsPerLevel() {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        h.resetData();
        h.awaitHealthy();
        CacheEndpoint endpoint = h.context.getBean(CacheEndpoint.class);
        h.groups.get(1);
        h.groups.list("", 5, "");

        Map<String, Object> flushed = endpoint.flush(true);
        assertThat(((Map<String, Object>) flushed.get("l1")).get("size")).isEqualTo(0L);
        assertThat(h.cache.redis().get(h.cache.l2().keyedKey(GroupCaches.GROUP, 1L))).isNull();
        Map<String, Object> total = (Map<String, Object>) flushed.get("total");
        assertThat(total.get("l1")).isEqualTo(Map.of("hits", 0L, "misses", 0L, "hitRatio", 0.0));

        for (int n = 0; n < 10; n++) {
            h.groups.get(1);
        }
        Map<String, Object> status = endpoint.status();
        assertThat(status).containsEntry("mode", "hybrid").containsEntry("instanceId", h.cache.instanceId())
                .containsEntry("breaker", "CLOSED");
        Map<String, Object> group = (Map<String, Object>) ((Map<String, Object>) status.get("caches")).get("group");
        assertThat(group.get("l1")).isEqualTo(Map.of("hits", 9L, "misses", 1L, "hitRatio", 0.9));
        assertThat(group.get("l2")).isEqualTo(Map.of("hits", 0L, "misses", 1L, "hitRatio", 0.0));
        assertThat(group.get("l1Size")).isEqualTo(1L);
        // What the bench reads to tell an untrusted L1 or a refresh that came too late from a cold cache.
        Map<String, Object> l1 = (Map<String, Object>) status.get("l1");
        assertThat(l1).containsEntry("trusted", true).containsKey("bypasses");
        assertThat((Map<String, Long>) l1.get("refreshes")).containsOnlyKeys("replaced", "superseded", "failed");
        Map<String, Object> log = (Map<String, Object>) status.get("log");
        assertThat((Long) log.get("lastPassAgeMs")).isLessThan(h.cache.stalenessBound().toMillis());
        assertThat(log).containsEntry("pendingRelays", 0).containsEntry("rechecking", false).containsEntry("l2OfThisDatabase", true);

        // A second instance's L1 warmed from the L2 that the first filled: an L2 hit there.
        Instance other = Instance.named("hybrid-b", CacheMode.HYBRID);
        // Reading L2 by then: an earlier test (RecreatedDatabaseTest) may have given the database
        // another identity, and an instance that noticed reads no L2 until it has emptied it (the
        // read below then went to MySQL, no L2 hit, in a make test run).
        other.awaitHealthy();
        other.cache.resetCounters();
        assertThat(Await.within(other.cache.stalenessBound(), () -> other.cache.l1().size() == 0)).isTrue();
        other.groups.get(1);
        assertThat(other.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L2)).isEqualTo(1);
    }

    @Test
    void metersAreRegisteredUnderTandemCache() {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        // a flush an earlier test left in the log would empty L1 right after the read below (the
        // L1 size gauge then read 0 in a full-suite CI run); wait until the flushes have passed
        Instance.awaitQuiet();
        h.groups.get(1);
        MeterRegistry registry = h.cache.metrics().registry();
        assertThat(registry.get(CacheMetrics.GETS).tags("cache", "group", "level", "l1", "result", "hit").counter()).isNotNull();
        assertThat(registry.get(CacheMetrics.LOAD).tags("cache", "group", "level", "db").timer()).isNotNull();
        assertThat(registry.get(CacheMetrics.INVALIDATION_LAG).timer()).isNotNull();
        assertThat(registry.get(CacheMetrics.BREAKER_STATE).gauge().value()).isZero();
        assertThat(registry.get(CacheMetrics.L1_SAFE).gauge().value()).isEqualTo(1.0);
        assertThat(registry.get(CacheMetrics.L1_SIZE).tag("cache", "group").gauge().value()).isPositive();
        assertThat(registry.get(CacheMetrics.INVALIDATIONS_SENT).counter()).isNotNull();
        assertThat(registry.get(CacheMetrics.LOG_RELAYED).counter()).isNotNull();
        assertThat(registry.get(CacheMetrics.L2_BLOCKED).gauge().value()).isZero();
    }
}
