package dev.tandem.cache;

import io.micrometer.observation.Observation;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A cached read: L1 (when present and trusted) → L2 (when present and readable) → the loader,
 * which queries MySQL. What one level misses, the level below fills on the way back up.
 *
 * <p>L1 is trusted while the log follower has read the invalidation log through within the
 * staleness bound; L2 is readable while the follower knows of no invalidation that is not in Redis
 * yet.
 *
 * <p>Reads inside a transaction bypass the cache, neither reading nor filling it: a read-write
 * transaction must see its own uncommitted rows, and must not put them where others could read them
 * before (or without) the commit; a read-only one reads from the snapshot it took at its first read,
 * which may be older than invalidations this cache has applied since — a fill from it would store
 * the old state over the tombstone and past L1's invalidation counters, and a cache hit would mix
 * another point in time into the transaction's consistent view. Outside a transaction the loader
 * opens its own, so its snapshot is younger than the miss (and the claim) that asked for it, which
 * is what the fill's race checks assume.
 *
 * <p>While tracing is on, each level asked is a span ({@link CacheSpans}); off, the spans are null.
 */
final class ReadPath {

    private final CacheMode mode;
    private final CacheCatalog catalog;
    private final CacheMetrics metrics;
    private final CacheSpans spans;
    private final L1Tier l1;
    private final L2Tier l2;
    private final BooleanSupplier l1Trusted;
    private final BooleanSupplier l2Readable;
    /**
     * What an L1 refresh reloads from: the levels below L1, as a miss reads them, but not counted as
     * gets (a refresh is counted in tandem.cache.l1.refreshes). Counted, its L2 hits would follow no
     * L1 miss, and the hit ratio "(L1 hits + L2 hits) ÷ L1 lookups" would take them for reads that
     * L1 missed and L2 answered.
     */
    private final L1Tier.Below below = this::refreshFromBelowL1;

    ReadPath(CacheMode mode, CacheCatalog catalog, CacheMetrics metrics, CacheSpans spans, L1Tier l1, L2Tier l2,
             BooleanSupplier l1Trusted, BooleanSupplier l2Readable) {
        this.mode = mode;
        this.catalog = catalog;
        this.metrics = metrics;
        this.spans = spans;
        this.l1 = l1;
        this.l2 = l2;
        this.l1Trusted = l1Trusted;
        this.l2Readable = l2Readable;
    }

    <V> Optional<V> get(CacheName<V> cache, Object key, Supplier<Optional<V>> loader) {
        if (mode == CacheMode.NONE || TransactionSynchronizationManager.isActualTransactionActive()) {
            return loader.get();
        }
        // A cache outside the catalog has no slot in the per-cache arrays; refused by one array read.
        catalog.require(cache);
        if (l1 != null) {
            if (l1Trusted.getAsBoolean()) {
                Observation span = spans.start(CacheSpans.L1, cache, key);
                try (Observation.Scope scope = CacheSpans.open(span)) {
                    Optional<V> hit = l1.getIfPresent(cache, key, loader, below, l1Trusted);
                    if (hit != null) {
                        metrics.hit(cache, CacheMetrics.Level.L1);
                        CacheSpans.result(span, CacheSpans.HIT);
                        return hit;
                    }
                    metrics.miss(cache, CacheMetrics.Level.L1);
                    CacheSpans.result(span, CacheSpans.MISS);
                    Optional<V> loaded = l1.load(cache, key, () -> belowL1(cache, key, loader, true), l1Trusted);
                    if (span != null) {
                        CacheSpans.fill(span, l1.getIfPresent(cache, key) != null);
                    }
                    return loaded;
                } catch (RuntimeException | Error e) {
                    CacheSpans.error(span, e);
                    throw e;
                } finally {
                    CacheSpans.stop(span);
                }
            }
            metrics.bypass(cache);
        }
        return belowL1(cache, key, loader, true);
    }

    private <V> Optional<V> refreshFromBelowL1(CacheName<V> cache, Object key, Supplier<Optional<V>> loader) {
        return belowL1(cache, key, loader, false);
    }

    /**
     * {@code counted}: a reader's get (hits, misses and load times recorded), not a refresh. A get that
     * passes L2 by (not readable now) is an L2 miss, as one past an untrusted L1 is an L1 miss:
     * uncounted, it left no trace in the hit ratios, and in redis mode, where the overall ratio is
     * L2's, reads that all went to MySQL read as no cache in play, half of them as all answered.
     */
    private <V> Optional<V> belowL1(CacheName<V> cache, Object key, Supplier<Optional<V>> loader, boolean counted) {
        if (l2 != null) {
            if (l2Readable.getAsBoolean()) {
                Observation span = spans.start(CacheSpans.L2, cache, key);
                try (Observation.Scope scope = CacheSpans.open(span)) {
                    return throughL2(cache, key, loader, span, counted);
                } catch (RuntimeException | Error e) {
                    CacheSpans.error(span, e);
                    throw e;
                } finally {
                    CacheSpans.stop(span);
                }
            }
            if (counted) {
                metrics.l2Bypass(cache);
            }
        }
        return fromSource(cache, loader, counted);
    }

    private <V> Optional<V> throughL2(CacheName<V> cache, Object key, Supplier<Optional<V>> loader, Observation span,
                                      boolean counted) {
        long started = System.nanoTime();
        L2Tier.Seen<V> seen;
        try {
            seen = l2.read(cache, key);
        } catch (RedisGateway.Unavailable e) {
            // The error is counted by the gateway; the get, as an L2 miss (see belowL1). MySQL answers.
            CacheSpans.result(span, CacheSpans.UNAVAILABLE);
            if (counted) {
                metrics.miss(cache, CacheMetrics.Level.L2);
            }
            return fromSource(cache, loader, counted);
        }
        if (seen.hit()) {
            if (counted) {
                metrics.hit(cache, CacheMetrics.Level.L2);
                metrics.l2Load(cache).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            }
            CacheSpans.result(span, CacheSpans.HIT);
            return Optional.of(seen.value);
        }
        if (counted) {
            metrics.miss(cache, CacheMetrics.Level.L2);
        }
        CacheSpans.result(span, CacheSpans.MISS);
        Optional<V> loaded = fromSource(cache, loader, counted);
        // Over the claim the read saw, or not at all (see L2Tier).
        CacheSpans.fill(span, loaded.isPresent() && l2.fill(cache, seen, loaded.get()));
        return loaded;
    }

    private <V> Optional<V> fromSource(CacheName<V> cache, Supplier<Optional<V>> loader, boolean counted) {
        if (!counted) {
            return loader.get();
        }
        long started = System.nanoTime();
        try {
            return loader.get();
        } finally {
            metrics.dbLoad(cache).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
    }
}
