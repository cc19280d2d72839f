package dev.tandem.cache;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * The read path's spans: one per cache level a read asks ({@code tandem.cache.l1}, {@code
 * tandem.cache.l2}), named {@code "l1 <cache>"} / {@code "l2 <cache>"}, with the answer as
 * attributes: {@code tandem.cache.result} (hit, miss, or unavailable when Redis could not be asked),
 * and on a miss {@code tandem.cache.fill} (whether the level holds the loaded value afterwards). A
 * miss's span encloses what answered instead, so a cold read shows L1 → L2 → the SQL.
 *
 * <p>With a no-op registry (tracing off) {@link #start} returns null and every other method does
 * nothing with null: the L1 hit path then costs one field test more than without tracing.
 */
final class CacheSpans {

    static final String L1 = "tandem.cache.l1";
    static final String L2 = "tandem.cache.l2";
    static final String CACHE = "tandem.cache.name";
    static final String KEY = "tandem.cache.key";
    static final String RESULT = "tandem.cache.result";
    static final String FILL = "tandem.cache.fill";

    static final String HIT = "hit";
    static final String MISS = "miss";
    static final String UNAVAILABLE = "unavailable";

    private final ObservationRegistry registry;
    private final boolean traced;

    CacheSpans(ObservationRegistry registry) {
        this.registry = registry;
        this.traced = !registry.isNoop();
    }

    /** A started span of {@code level} for a read of {@code key}, or null when not tracing. */
    Observation start(String level, CacheName<?> cache, Object key) {
        if (!traced) {
            return null;
        }
        return Observation.createNotStarted(level, registry)
                .contextualName((level.equals(L1) ? "l1 " : "l2 ") + cache.id())
                .lowCardinalityKeyValue(CACHE, cache.id())
                .highCardinalityKeyValue(KEY, String.valueOf(key))
                .start();
    }

    /** The span as the current one, so that what runs inside (the level below, the SQL) are its children. */
    static Observation.Scope open(Observation span) {
        return span == null ? null : span.openScope();
    }

    static void result(Observation span, String result) {
        if (span != null) {
            span.lowCardinalityKeyValue(RESULT, result);
        }
    }

    static void fill(Observation span, boolean stored) {
        if (span != null) {
            span.lowCardinalityKeyValue(FILL, String.valueOf(stored));
        }
    }

    static void error(Observation span, Throwable failure) {
        if (span != null) {
            span.error(failure);
        }
    }

    static void stop(Observation span) {
        if (span != null) {
            span.stop();
        }
    }
}
