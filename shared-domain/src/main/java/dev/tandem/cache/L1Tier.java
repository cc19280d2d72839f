package dev.tandem.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * L1: one Caffeine cache per cache name, bounded by entries and by TTL. Values are
 * {@code Optional}s, the empty one being a short-lived "not found".
 *
 * <p>Race with invalidations: a load can read the old value from L2 or MySQL, then an invalidation
 * for its key arrives, and only then the load returns. Each cache therefore keeps a flush epoch
 * and 256 invalidation counters, striped by the invalidation's scope (the id, or the subject for
 * pages and leaderboards). A load notes both before it starts; if either moved by the time it
 * finishes, its result is returned to its caller (whose read overlapped the write) but not kept.
 * Invalidations bump the counter before they remove, so a load either sees the bump or its entry
 * is removed after it was stored.
 */
final class L1Tier {

    private static final int STRIPES = 256;

    private final List<Cache<Object, Optional<?>>> caches = new ArrayList<>();
    private final AtomicLong[] epochs = new AtomicLong[CacheName.ALL.size()];
    private final AtomicLongArray[] stripes = new AtomicLongArray[CacheName.ALL.size()];

    L1Tier(CacheProperties.L1 config, Clock clock) {
        for (CacheName<?> cache : CacheName.ALL) {
            caches.add(Caffeine.newBuilder()
                    .maximumSize(config.maxEntries())
                    .expireAfter(expiry(cache, config, clock))
                    .build());
            epochs[cache.index()] = new AtomicLong();
            stripes[cache.index()] = new AtomicLongArray(STRIPES);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Expiry<Object, Optional<?>> expiry(CacheName<?> cache, CacheProperties.L1 config, Clock clock) {
        return Expiry.creating((key, value) -> {
            if (value.isEmpty()) {
                return config.negativeTtl();
            }
            Optional<Duration> valid = ((CacheName) cache).validFor(value.get(), clock.instant());
            return valid.filter(d -> d.compareTo(config.ttl()) < 0)
                    .map(d -> d.isNegative() ? Duration.ZERO : d)
                    .orElse(config.ttl());
        });
    }

    /** The entry, or null when L1 does not hold one. */
    @SuppressWarnings("unchecked")
    <V> Optional<V> getIfPresent(CacheName<V> cache, Object key) {
        return (Optional<V>) caches.get(cache.index()).getIfPresent(key);
    }

    /**
     * Gets {@code key}, running {@code source} if L1 does not hold it — at most one source per key
     * at a time on this instance (Caffeine's compute), so a miss on a hot key is one load, not a
     * stampede. {@code stillSafe} is asked once the load is done: a result is kept only if L1 is
     * still trusted then and no invalidation or flush for its scope came in meanwhile.
     */
    @SuppressWarnings("unchecked")
    <V> Optional<V> load(CacheName<V> cache, Object key, Supplier<Optional<V>> source, BooleanSupplier stillSafe) {
        Cache<Object, Optional<?>> l1 = caches.get(cache.index());
        int stripe = stripe(cache.scopeOf(key));
        long epoch = epochs[cache.index()].get();
        long version = stripes[cache.index()].get(stripe);
        Object[] loaded = new Object[1];
        Optional<?> value = l1.get(key, k -> {
            Optional<V> result = source.get();
            loaded[0] = result;
            // Returning null tells Caffeine to store nothing; waiting readers then load themselves.
            return moved(cache, stripe, epoch, version) || !stillSafe.getAsBoolean() ? null : result;
        });
        if (value == null) {
            return (Optional<V>) loaded[0];
        }
        if (loaded[0] != null && moved(cache, stripe, epoch, version)) {
            // The invalidation came between our check and Caffeine storing the value.
            l1.asMap().remove(key, value);
        }
        return (Optional<V>) value;
    }

    private boolean moved(CacheName<?> cache, int stripe, long epoch, long version) {
        return epochs[cache.index()].get() != epoch || stripes[cache.index()].get(stripe) != version;
    }

    void invalidate(Invalidation invalidation) {
        for (Invalidation.Target target : invalidation.targets()) {
            int c = target.cache().index();
            stripes[c].incrementAndGet(stripe(target.key()));
            if (target.cache().subjectScoped()) {
                caches.get(c).asMap().keySet().removeIf(k -> ((SubjectScoped) k).subject().equals(target.key()));
            } else {
                caches.get(c).invalidate(target.key());
            }
        }
    }

    /** Drops every entry of every cache, and every load in flight. */
    void flush() {
        for (CacheName<?> cache : CacheName.ALL) {
            epochs[cache.index()].incrementAndGet();
            caches.get(cache.index()).invalidateAll();
        }
    }

    long size(CacheName<?> cache) {
        return caches.get(cache.index()).estimatedSize();
    }

    long size() {
        return CacheName.ALL.stream().mapToLong(this::size).sum();
    }

    /** How many invalidations and flushes have reached {@code scope} so far (for tests and diagnostics). */
    long invalidationCount(CacheName<?> cache, Object scope) {
        return epochs[cache.index()].get() + stripes[cache.index()].get(stripe(scope));
    }

    /** A copy of what L1 holds for {@code cache}, for diagnostics and tests. */
    Map<Object, Optional<?>> snapshot(CacheName<?> cache) {
        return Map.copyOf(caches.get(cache.index()).asMap());
    }

    private static int stripe(Object scope) {
        int h = scope.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (STRIPES - 1);
    }
}
