package dev.tandem.cache;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code GET /actuator/cache} shows: per cache and level the hits, misses and hit ratio since
 * the last counter reset, and the state of L1 (trusted?), L2 (readable?), the breaker and the log
 * follower. The bench reads the counters before and after each window.
 */
final class CacheStatus {

    private CacheStatus() {
    }

    static Map<String, Object> of(TieredCache cache) {
        CacheMetrics metrics = cache.metrics();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("mode", cache.mode().name().toLowerCase());
        out.put("instanceId", cache.instanceId());
        out.put("stalenessBoundMs", cache.stalenessBound().toMillis());
        Map<String, Object> caches = new LinkedHashMap<>();
        long[] totals = new long[4];
        // One window for every cache and level: a reset in between would mix two in the totals.
        Map<CacheName<?>, CacheMetrics.Window[]> windows = metrics.windows();
        for (CacheName<?> name : cache.catalog().all()) {
            Map<String, Object> levels = new LinkedHashMap<>();
            for (CacheMetrics.Level level : CacheMetrics.Level.values()) {
                long hits = windows.get(name)[level.ordinal()].hits();
                long misses = windows.get(name)[level.ordinal()].misses();
                totals[level.ordinal() * 2] += hits;
                totals[level.ordinal() * 2 + 1] += misses;
                levels.put(level.tag(), counts(hits, misses));
            }
            if (cache.l1() != null) {
                levels.put("l1Size", cache.l1().size(name));
            }
            caches.put(name.id(), levels);
        }
        out.put("caches", caches);
        Map<String, Object> total = new LinkedHashMap<>();
        for (CacheMetrics.Level level : CacheMetrics.Level.values()) {
            total.put(level.tag(), counts(totals[level.ordinal() * 2], totals[level.ordinal() * 2 + 1]));
        }
        out.put("total", total);
        // bypasses: reads that skipped an untrusted L1; refreshes: hot entries reloaded ahead of
        // their expiry, by outcome. The bench reads both to say why a warm window missed.
        out.put("l1", Map.of("enabled", cache.l1() != null, "trusted", cache.l1Trusted(),
                "size", cache.l1() == null ? 0 : cache.l1().size(),
                "bypasses", metrics.bypasses(), "refreshes", metrics.refreshCounts()));
        if (cache.redis() != null) {
            out.put("l2", Map.of("enabled", true, "readable", cache.l2Readable(), "bypasses", metrics.l2Bypasses()));
            out.put("breaker", cache.redis().breaker().getState().name());
        }
        LogFollower follower = cache.follower();
        if (follower != null) {
            Map<String, Object> log = new LinkedHashMap<>();
            log.put("highestSeq", follower.highestSeen());
            log.put("connectionId", follower.connectionId());
            log.put("lastPassAgeMs", follower.lastPassAgeMillis());
            log.put("holes", follower.holes());
            log.put("pendingRelays", follower.pendingRelays());
            log.put("rechecking", follower.rechecking());
            // false until Redis is found to hold this database's L2 (L2 is not read meanwhile)
            log.put("l2OfThisDatabase", follower.l2OfThisDatabase());
            log.put("peers", follower.peers());
            out.put("log", log);
        }
        out.put("invalidations", Map.of(
                "logged", (long) metrics.invalidationsSent.count(),
                "relayFailures", (long) metrics.invalidationsFailed.count(),
                "applied", (long) metrics.invalidationsApplied.count(),
                "relayedForOthers", (long) metrics.relayedForOthers.count()));
        out.put("l1Flushes", metrics.flushCounts());
        out.put("redisErrors", metrics.redisErrorCounts());
        return out;
    }

    private static Map<String, Object> counts(long hits, long misses) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hits", hits);
        m.put("misses", misses);
        m.put("hitRatio", hits + misses == 0 ? 0.0 : (double) hits / (hits + misses));
        return m;
    }
}
