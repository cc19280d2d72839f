package dev.tandem.cache;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import com.github.benmanes.caffeine.cache.Weigher;
import dev.tandem.deadline.RequestDeadline;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * L1: one Caffeine cache per cache of the {@link CacheCatalog}, bounded by entries and by a jittered TTL.
 * Values are {@code Optional}s, the empty one being a short-lived "not found".
 *
 * <p>One load per key at a time: a reader that misses puts its own pending future into the cache
 * and loads on its own thread; readers of the same key that come meanwhile wait for that future
 * instead of loading too (no stampede). This is Caffeine's AsyncCache rather than
 * {@code Cache.get(key, loader)}, because the latter runs the load inside the map's compute and so
 * blocks every removal of the key (and of keys in the same hash bin) until the load is done —
 * which would make a writer, still holding its database connection in afterCommit, wait for a
 * reader that needs a connection. Here invalidations never wait for loads.
 *
 * <p>Race with invalidations: a load can read the old value from L2 or MySQL, then an invalidation
 * for its key arrives, and only then the load returns. Each cache therefore keeps a flush epoch
 * and 256 invalidation counters, striped by the invalidation's scope (the id, or the key's
 * {@link ScopedKey#scope()} for scoped caches). A load notes both before it starts; if either
 * moved by the time it finishes, its result is returned to its caller (whose read overlapped the
 * write) but not kept. Invalidations bump the counter before they remove, so a load either sees
 * the bump or its entry is removed after it was stored.
 *
 * <p>Scoped caches (pages, leaderboards) are invalidated a scope at a time without looking at
 * their entries: each scope that was ever invalidated has a generation, which is part of every L1
 * key of that scope, and invalidating the scope bumps it. The old entries can no longer be found
 * and leave by size or TTL. (Only scopes that writes name get a generation; a scope no write ever
 * named stays at generation 0, so arbitrary scopes in requests do not grow the map.)
 *
 * <p><b>Refresh ahead.</b> The TTL is a safety net, not what keeps L1 correct (invalidations do),
 * yet a hot entry that simply expired made every reader that came during its reload a miss that
 * waited for it; on a saturated instance the reload waits behind the queue too, so each expiry
 * turned into hundreds of misses (the overload bench's warm hit ratio). So a hit on a value entry
 * older than {@code refresh-after} also starts its reload, one at a time per entry and in the
 * background (on threads of its own, {@link #refreshThreads()}), and the reader gets the entry it
 * found; a reload that fails or whose result is dropped leaves the entry to the next hit. The
 * reload goes through the levels below L1 like any miss (not counted as a get: see ReadPath), and
 * its result replaces the entry only under the same conditions as a load's is kept
 * (no invalidation or flush for its scope meanwhile, L1 still trusted) and only if the entry is
 * still the one it refreshed (an atomic replace of that very future): a refresh never puts back a
 * value that an invalidation removed. A key nobody reads past that age is not refreshed and
 * expires as before; "not found" entries are never refreshed.
 */
final class L1Tier {

    private static final int STRIPES = 256;

    /** How a refresh ended, for the metrics. */
    enum Refresh {
        /** The entry was replaced by the reloaded value. */
        REPLACED,
        /**
         * An invalidation, a flush, another fill or an untrusted L1 came first: the result was
         * dropped. An entry that is still there (the invalidation was of another key of its stripe,
         * L1 was only briefly untrusted) may be refreshed by a later hit.
         */
        SUPERSEDED,
        /** The reload failed; the entry stays (until it expires) and a later hit may try again. */
        FAILED;

        String tag() {
            return name().toLowerCase();
        }
    }

    /** The levels below L1 for one key: what a refresh reloads from (ReadPath's, so a refresh reads as a miss does). */
    interface Below {
        <V> Optional<V> load(CacheName<V> cache, Object key, Supplier<Optional<V>> loader);
    }

    /** Told how each refresh ended (the metrics). */
    interface RefreshOutcomes {
        void refreshed(CacheName<?> cache, Refresh outcome);
    }

    /**
     * An L1 entry: its value (once loaded) and when it becomes due for a refresh, by the cache's
     * ticker. At most one refresh per entry is in flight, and a successful one replaces the entry;
     * one that failed or was dropped lets a later hit start another.
     */
    private static final class Fill extends CompletableFuture<Optional<?>> {

        private static final AtomicIntegerFieldUpdater<Fill> REFRESHING =
                AtomicIntegerFieldUpdater.newUpdater(Fill.class, "refreshing");

        private final long refreshDueNanos;
        private volatile int refreshing;

        Fill(long refreshDueNanos) {
            this.refreshDueNanos = refreshDueNanos;
        }

        /** True for the one caller that may refresh this entry now: it is due and no refresh is running. */
        boolean claimRefresh(long nowNanos) {
            return nowNanos - refreshDueNanos >= 0 && refreshing == 0 && REFRESHING.compareAndSet(this, 0, 1);
        }

        /**
         * The refresh ended without replacing this entry (it failed, or its result was dropped): a
         * later hit may try again. Without this, an entry whose refresh lost to an invalidation of
         * another key of its stripe, or ended while L1 was untrusted, stayed current but was never
         * refreshed again, and expired under its readers. Safe, because a refresh only ever
         * replaces this very entry where it was found: one that an invalidation removed is not
         * replaced (the replace compares the entry), and one it left under an ended generation of
         * its scope is found by no reader, whatever a refresh puts there.
         */
        void refreshEnded() {
            refreshing = 0;
        }
    }

    private final CacheCatalog catalog;
    /** Per cache, by {@link CacheName#index()} (see {@link CacheCatalog}). */
    private final AsyncCache<Object, Optional<?>>[] caches;
    private final AtomicLong[] epochs;
    private final AtomicLongArray[] stripes;
    private final ConcurrentHashMap<String, AtomicLong>[] generations;
    private final Ticker ticker;
    /** 0: no refresh ahead. */
    private final long refreshAfterNanos;
    private final Executor refreshes;
    private final RefreshOutcomes outcomes;

    /** The L1 key of a scoped entry: the entry's key in its scope's current generation. */
    private record Generational(Object key, long generation) {
    }

    L1Tier(CacheProperties.L1 config, Clock clock, CacheCatalog catalog, RefreshOutcomes outcomes) {
        this(config, clock, catalog, Ticker.systemTicker(), refreshThreads(), outcomes);
    }

    /**
     * Where refreshes run: two platform threads of their own (daemons, gone after 30 s idle) with a
     * bounded queue. Not a virtual thread per refresh: a refresh blocks on Redis and JDBC several
     * times, and a virtual thread that unblocks queues again behind every runnable request, so on
     * a saturated instance a refresh took longer than its entry had left to live and the entry
     * expired under its readers anyway (the overload bench, refreshes superseded by the expiry).
     * Platform threads compete with the carrier threads in the kernel's scheduler instead, as the
     * log follower does. A full queue drops the refresh; a later hit asks again.
     */
    private static Executor refreshThreads() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024),
                Thread.ofPlatform().daemon().name("tandem-cache-refresh-", 0).factory());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * {@code ticker} is what Caffeine measures lifetimes with (and what refresh-after is measured
     * with): a test's stopped one makes them exact. {@code refreshes} runs the refreshes.
     */
    @SuppressWarnings("unchecked")
    L1Tier(CacheProperties.L1 config, Clock clock, CacheCatalog catalog, Ticker ticker, Executor refreshes,
           RefreshOutcomes outcomes) {
        this.catalog = catalog;
        this.ticker = ticker;
        this.refreshAfterNanos = config.refreshAfter().toNanos();
        this.refreshes = refreshes;
        this.outcomes = outcomes;
        caches = new AsyncCache[catalog.slots()];
        epochs = new AtomicLong[catalog.slots()];
        stripes = new AtomicLongArray[catalog.slots()];
        generations = new ConcurrentHashMap[catalog.slots()];
        for (CacheName<?> cache : catalog.all()) {
            caches[cache.index()] = Caffeine.newBuilder()
                    // Caffeine's upkeep (replaying reads into its policy, expiring, evicting) runs
                    // on the thread that reads or writes, not on ForkJoinPool.commonPool(): a warm
                    // read fills a read buffer that asks for a drain every few reads, and handing
                    // that drain to the pool woke one of its threads each time (an unpark, a futex
                    // call, a context switch: one in three warm REST GetGroups; docs/hot-path.md,
                    // the hot path's lab notebook). The drain is O(buffer) work under a tryLock,
                    // so the reader that runs it pays little; the executor would matter for removal
                    // listeners and Caffeine's own loads, and this cache has neither (refreshes run
                    // on {@link #refreshes}).
                    .executor(Runnable::run)
                    // Bounded by weight, not by count alone: 10,000 entries of a cache of pages
                    // could be 10,000 pages of 1,000 groups, and a bench warm-up that asked a few
                    // thousand distinct ones ran a 512 MB REST service out of heap. The weight is
                    // the entry's encoded size, floored so that no more than maxEntries fit.
                    .maximumWeight(config.maxBytes().toBytes())
                    .weigher(weigher(cache, config))
                    .expireAfter(expiry(cache, config, clock))
                    .ticker(ticker)
                    .buildAsync();
            epochs[cache.index()] = new AtomicLong();
            stripes[cache.index()] = new AtomicLongArray(STRIPES);
            generations[cache.index()] = new ConcurrentHashMap<>();
        }
    }

    /**
     * An entry's weight: its value's encoded size (the codec's bytes, what L2 stores), at least
     * maxBytes ÷ maxEntries so that the count bound holds too. Encoding costs a fill (a load from
     * L2 or MySQL, which costs far more), never a hit. The heap an entry takes is a few times its
     * encoded size (the objects, and the wire forms the services keep beside it), so maxBytes bounds
     * the heap only up to that factor; it is the bound the two services share, whatever they keep.
     */
    @SuppressWarnings("unchecked")
    static Weigher<Object, Optional<?>> weigher(CacheName<?> cache, CacheProperties.L1 config) {
        CacheName<Object> named = (CacheName<Object>) cache;
        int floor = (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.maxBytes().toBytes() / config.maxEntries()));
        return (key, value) -> value.isEmpty() ? floor : Math.max(floor, named.encode(value.get()).length);
    }

    private Object l1Key(CacheName<?> cache, Object key) {
        if (!cache.scoped()) {
            return key;
        }
        AtomicLong generation = generations[cache.index()].get(((ScopedKey) key).scope());
        return new Generational(key, generation == null ? 0 : generation.get());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Expiry<Object, Optional<?>> expiry(CacheName<?> cache, CacheProperties.L1 config, Clock clock) {
        // writing, not creating: a refresh replaces an entry, and the new value's lifetime starts then.
        return Expiry.writing((key, value) -> {
            // "Not found" entries are jittered too: a burst of misses on absent ids (a scan, a
            // fuzzer) would otherwise come back to MySQL in one wave. negativeTtl stays their bound.
            if (value.isEmpty()) {
                return jittered(config.negativeTtl(), config.ttlJitter());
            }
            Duration ttl = jittered(config.ttl(), config.ttlJitter());
            Optional<Duration> valid = ((CacheName) cache).validFor(value.get(), clock.instant());
            return valid.filter(d -> d.compareTo(ttl) < 0)
                    .map(d -> d.isNegative() ? Duration.ZERO : d)
                    .orElse(ttl);
        });
    }

    /**
     * {@code ttl × (1 − jitter × U)}, U uniform in [0, 1): entries filled together (at start-up, in
     * a bench window) expire spread over [ttl × (1 − jitter), ttl] instead of in one wave. Only
     * shorter, unlike L2's ±jitter, because ttl is documented as the most an L1 entry lives.
     */
    private static Duration jittered(Duration ttl, double jitter) {
        if (jitter == 0) {
            return ttl;
        }
        return Duration.ofNanos(Math.round(ttl.toNanos() * (1 - jitter * ThreadLocalRandom.current().nextDouble())));
    }

    /** The entry, or null when L1 does not hold a finished one. */
    @SuppressWarnings("unchecked")
    <V> Optional<V> getIfPresent(CacheName<V> cache, Object key) {
        CompletableFuture<Optional<?>> entry = caches[cache.index()].getIfPresent(l1Key(cache, key));
        if (entry == null || !entry.isDone() || entry.isCompletedExceptionally()) {
            return null;
        }
        return (Optional<V>) entry.join();
    }

    /**
     * The entry, or null when L1 does not hold a finished one, as {@link #getIfPresent(CacheName, Object)};
     * a hit on a value older than refresh-after also starts its refresh from {@code below} (see the
     * class comment), which {@code stillSafe} is asked about as a load's result is.
     */
    @SuppressWarnings("unchecked")
    <V> Optional<V> getIfPresent(CacheName<V> cache, Object key, Supplier<Optional<V>> loader, Below below,
                                 BooleanSupplier stillSafe) {
        Object l1Key = l1Key(cache, key);
        CompletableFuture<Optional<?>> entry = caches[cache.index()].getIfPresent(l1Key);
        if (entry == null || !entry.isDone() || entry.isCompletedExceptionally()) {
            return null;
        }
        Optional<V> value = (Optional<V>) entry.join();
        if (refreshAfterNanos > 0 && value.isPresent() && entry instanceof Fill fill
                && fill.claimRefresh(ticker.read())) {
            refresh(cache, key, l1Key, fill, loader, below, stillSafe);
        }
        return value;
    }

    private <V> void refresh(CacheName<V> cache, Object key, Object l1Key, Fill due, Supplier<Optional<V>> loader,
                             Below below, BooleanSupplier stillSafe) {
        Map<Object, CompletableFuture<Optional<?>>> l1 = caches[cache.index()].asMap();
        // Noted before the reload reads anything, as a load notes them (see load).
        int stripe = stripe(cache.scopeOf(key));
        long epoch = epochs[cache.index()].get();
        long version = stripes[cache.index()].get(stripe);
        Runnable reload = () -> {
            Optional<V> result;
            try {
                result = below.load(cache, key, loader);
            } catch (RuntimeException | Error e) {
                due.refreshEnded();
                outcomes.refreshed(cache, Refresh.FAILED);
                return;
            }
            Fill next = new Fill(ticker.read() + refreshAfterNanos);
            next.complete(result);
            // replace(key, due, next) only succeeds while the entry is still the future this refresh
            // started from: an invalidation or flush that removed it, or a newer fill, wins.
            boolean replaced = !moved(cache, stripe, epoch, version) && stillSafe.getAsBoolean()
                    && l1.replace(l1Key, due, next);
            if (replaced && moved(cache, stripe, epoch, version)) {
                // The invalidation came between the check and the replace.
                l1.remove(l1Key, next);
                replaced = false;
            }
            if (!replaced) {
                due.refreshEnded();
            }
            outcomes.refreshed(cache, replaced ? Refresh.REPLACED : Refresh.SUPERSEDED);
        };
        try {
            refreshes.execute(reload);
        } catch (RejectedExecutionException e) {
            due.refreshEnded();
            outcomes.refreshed(cache, Refresh.FAILED);
        }
    }

    /**
     * Gets {@code key}, running {@code source} on this thread if L1 does not hold it and no other
     * reader is loading it already (then that load's result is awaited, within this request's
     * deadline when the thread has one: DEADLINE_EXCEEDED after it). {@code stillSafe} is asked
     * once the load is done: a result is kept only if L1 is still trusted then and no invalidation
     * or flush for its scope came in meanwhile.
     */
    @SuppressWarnings("unchecked")
    <V> Optional<V> load(CacheName<V> cache, Object key, Supplier<Optional<V>> source, BooleanSupplier stillSafe) {
        Map<Object, CompletableFuture<Optional<?>>> l1 = caches[cache.index()].asMap();
        int stripe = stripe(cache.scopeOf(key));
        long epoch = epochs[cache.index()].get();
        long version = stripes[cache.index()].get(stripe);
        key = l1Key(cache, key);
        CompletableFuture<Optional<?>> mine = new Fill(ticker.read() + refreshAfterNanos);
        CompletableFuture<Optional<?>> loading = l1.putIfAbsent(key, mine);
        if (loading != null) {
            try {
                // Awaited no longer than this request's own deadline (the load runs under another's).
                Optional<RequestDeadline> deadline = RequestDeadline.current();
                return (Optional<V>) (deadline.isPresent() ? deadline.get().await(loading) : loading.join());
            } catch (CompletionException | CancellationException e) {
                // That reader's load failed; this one tries for itself, without L1.
                return source.get();
            }
        }
        Optional<V> result;
        try {
            result = source.get();
        } catch (RuntimeException | Error e) {
            l1.remove(key, mine);
            mine.completeExceptionally(e);
            throw e;
        }
        // An invalidation that arrived while we loaded removed our future already; one that came
        // between reading the counters above and putIfAbsent did not, and the counters tell.
        boolean keep = !moved(cache, stripe, epoch, version) && stillSafe.getAsBoolean();
        if (!keep) {
            l1.remove(key, mine);
        }
        // Readers that waited for this load get its result either way: they asked before it ended.
        mine.complete(result);
        if (keep && moved(cache, stripe, epoch, version)) {
            // The invalidation came between the check and now.
            l1.remove(key, mine);
        }
        return result;
    }

    private boolean moved(CacheName<?> cache, int stripe, long epoch, long version) {
        return epochs[cache.index()].get() != epoch || stripes[cache.index()].get(stripe) != version;
    }

    void invalidate(Invalidation invalidation) {
        for (Invalidation.Target target : invalidation.targets()) {
            int c = target.cache().index();
            stripes[c].incrementAndGet(stripe(target.key()));
            if (target.cache().scoped()) {
                generations[c].computeIfAbsent((String) target.key(), scope -> new AtomicLong()).incrementAndGet();
            } else {
                caches[c].asMap().remove(target.key());
            }
        }
    }

    /** Drops every entry of every cache, and every load in flight. */
    void flush() {
        for (CacheName<?> cache : catalog.all()) {
            epochs[cache.index()].incrementAndGet();
            caches[cache.index()].synchronous().invalidateAll();
        }
    }

    long size(CacheName<?> cache) {
        return caches[cache.index()].synchronous().estimatedSize();
    }

    long size() {
        return catalog.all().stream().mapToLong(this::size).sum();
    }

    /** How many invalidations and flushes have reached {@code scope} so far (for tests and diagnostics). */
    long invalidationCount(CacheName<?> cache, Object scope) {
        return epochs[cache.index()].get() + stripes[cache.index()].get(stripe(scope));
    }

    /** How long the entry for {@code key} has left to live, by the cache's ticker (for tests). */
    Optional<Duration> expiresAfter(CacheName<?> cache, Object key) {
        Object l1Key = l1Key(cache, key);
        return caches[cache.index()].synchronous().policy().expireVariably()
                .flatMap(expiry -> expiry.getExpiresAfter(l1Key));
    }

    /** A copy of what L1 holds for {@code cache}, for diagnostics and tests. */
    Map<Object, Optional<?>> snapshot(CacheName<?> cache) {
        Map<Object, Optional<?>> out = new HashMap<>();
        caches[cache.index()].asMap().forEach((key, entry) -> {
            if (entry.isDone() && !entry.isCompletedExceptionally()) {
                if (key instanceof Generational g) {
                    if (!g.equals(l1Key(cache, g.key()))) {
                        return; // an invalidated generation: unreachable, only waiting to be evicted
                    }
                    key = g.key();
                }
                out.put(key, entry.join());
            }
        });
        return out;
    }

    /** The counter stripe of a scope (package-private for the tests that need two scopes of one stripe). */
    static int stripe(Object scope) {
        int h = scope.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (STRIPES - 1);
    }
}
