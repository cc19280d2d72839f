package dev.tandem.cache;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every meter of the cache, under {@code tandem.cache.*}. The get counters are created up front
 * (every cache of the catalog × two levels × hit/miss) so that the hit path only increments a counter it already
 * holds. The admin endpoint reads the same counters, minus a baseline it can move ("reset"), since
 * Micrometer counters themselves must only grow.
 */
final class CacheMetrics {

    static final String GETS = "tandem.cache.gets";
    static final String LOAD = "tandem.cache.load";
    static final String L1_BYPASSES = "tandem.cache.l1.bypasses";
    static final String L2_BYPASSES = "tandem.cache.l2.bypasses";
    static final String L1_FLUSHES = "tandem.cache.l1.flushes";
    static final String L1_REFRESHES = "tandem.cache.l1.refreshes";
    static final String L1_SIZE = "tandem.cache.l1.size";
    static final String L1_SAFE = "tandem.cache.l1.safe";
    static final String L2_DECODE_FAILURES = "tandem.cache.l2.decode.failures";
    static final String L2_BLOCKED = "tandem.cache.l2.blocked";
    static final String INVALIDATIONS_SENT = "tandem.cache.invalidations.sent";
    static final String INVALIDATIONS_FAILED = "tandem.cache.invalidations.failed";
    static final String INVALIDATIONS_APPLIED = "tandem.cache.invalidations.applied";
    static final String INVALIDATION_LAG = "tandem.cache.invalidation.lag";
    static final String LOG_RELAYED = "tandem.cache.log.relayed";
    static final String LOG_HOLES_ABANDONED = "tandem.cache.log.holes.abandoned";
    static final String LOG_LATE_ROWS = "tandem.cache.log.rows.late";
    static final String REDIS_ERRORS = "tandem.cache.redis.errors";
    static final String BREAKER_STATE = "tandem.cache.redis.breaker.state";

    enum Level {
        L1, L2;

        String tag() {
            return name().toLowerCase();
        }
    }

    private final MeterRegistry registry;
    private final CacheCatalog catalog;
    // Per cache, by CacheName.index() (see CacheCatalog).
    private final Counter[][] hits;
    private final Counter[][] misses;
    private final double[][] hitBaseline;
    private final double[][] missBaseline;
    private final Timer[] l2Loads;
    private final Timer[] dbLoads;
    private final Counter[] bypasses;
    private final Counter[] l2Bypasses;
    private final Counter[] decodeFailures;
    /** Per cache and {@link L1Tier.Refresh} outcome. */
    private final Counter[][] refreshes;
    private final Map<String, Counter> flushes = new ConcurrentHashMap<>();
    private final Map<String, Counter> redisErrors = new ConcurrentHashMap<>();
    final Counter invalidationsSent;
    final Counter invalidationsFailed;
    final Counter invalidationsApplied;
    final Timer invalidationLag;
    final Counter relayedForOthers;
    final Counter holesAbandoned;
    final Counter lateRows;

    CacheMetrics(MeterRegistry registry, CacheCatalog catalog) {
        this.registry = registry;
        this.catalog = catalog;
        int slots = catalog.slots();
        int levels = Level.values().length;
        hits = new Counter[slots][levels];
        misses = new Counter[slots][levels];
        hitBaseline = new double[slots][levels];
        missBaseline = new double[slots][levels];
        l2Loads = new Timer[slots];
        dbLoads = new Timer[slots];
        bypasses = new Counter[slots];
        l2Bypasses = new Counter[slots];
        decodeFailures = new Counter[slots];
        refreshes = new Counter[slots][L1Tier.Refresh.values().length];
        for (CacheName<?> cache : catalog.all()) {
            int c = cache.index();
            for (Level level : Level.values()) {
                hits[c][level.ordinal()] = Counter.builder(GETS).description("Cache lookups by cache, level and result")
                        .tags("cache", cache.id(), "level", level.tag(), "result", "hit").register(registry);
                misses[c][level.ordinal()] = Counter.builder(GETS).description("Cache lookups by cache, level and result")
                        .tags("cache", cache.id(), "level", level.tag(), "result", "miss").register(registry);
            }
            l2Loads[c] = Timer.builder(LOAD).description("Time to get a value that L1 did not have, by the level that answered")
                    .tags("cache", cache.id(), "level", "l2").register(registry);
            dbLoads[c] = Timer.builder(LOAD).description("Time to get a value that L1 did not have, by the level that answered")
                    .tags("cache", cache.id(), "level", "db").register(registry);
            bypasses[c] = Counter.builder(L1_BYPASSES)
                    .description("Reads that skipped L1 because the log was not read through within the staleness bound "
                            + "(each also counts as an L1 miss)")
                    .tags("cache", cache.id()).register(registry);
            l2Bypasses[c] = Counter.builder(L2_BYPASSES)
                    .description("Reads that skipped L2 because it was not read then (an invalidation not relayed yet, "
                            + "a re-check after a reconnect, the log not read within the bound, the breaker open; each "
                            + "also counts as an L2 miss)")
                    .tags("cache", cache.id()).register(registry);
            for (L1Tier.Refresh outcome : L1Tier.Refresh.values()) {
                refreshes[c][outcome.ordinal()] = Counter.builder(L1_REFRESHES)
                        .description("Hot L1 entries reloaded in the background before they expire (refresh-after), "
                                + "by outcome: replaced, superseded (an invalidation or another fill came first), failed")
                        .tags("cache", cache.id(), "result", outcome.tag()).register(registry);
            }
            decodeFailures[c] = Counter.builder(L2_DECODE_FAILURES)
                    .description("L2 values that did not decode (or had an unknown format) and were deleted")
                    .tags("cache", cache.id()).register(registry);
        }
        invalidationsSent = Counter.builder(INVALIDATIONS_SENT)
                .description("Invalidation-log rows this instance appended (its writes and flushes)").register(registry);
        invalidationsFailed = Counter.builder(INVALIDATIONS_FAILED)
                .description("Relays of log rows to Redis that failed; the row is relayed again, by this or another instance")
                .register(registry);
        invalidationsApplied = Counter.builder(INVALIDATIONS_APPLIED)
                .description("Invalidation-log rows this instance's follower applied to its L1 (not the rows of its own writes, which the writer applied after its commit)")
                .register(registry);
        invalidationLag = Timer.builder(INVALIDATION_LAG)
                .description("From another instance's write's commit (its log row's time) to this instance's L1 invalidation by the follower")
                .publishPercentileHistogram().publishPercentiles(0.5, 0.9, 0.99).percentilePrecision(2)
                .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
        relayedForOthers = Counter.builder(LOG_RELAYED)
                .description("Log rows this instance relayed to Redis because their writer had not (no marker)")
                .register(registry);
        holesAbandoned = Counter.builder(LOG_HOLES_ABANDONED)
                .description("Log sequence numbers given up on after tandem.cache.log.hole-timeout (rolled-back inserts; at start-up also numbers below the first row read, purged before)")
                .register(registry);
        lateRows = Counter.builder(LOG_LATE_ROWS)
                .description("Log rows read after their number was given up as a hole (a COMMIT that completed after tandem.cache.log.hole-timeout): applied late")
                .register(registry);
    }

    MeterRegistry registry() {
        return registry;
    }

    void hit(CacheName<?> cache, Level level) {
        hits[cache.index()][level.ordinal()].increment();
    }

    void miss(CacheName<?> cache, Level level) {
        misses[cache.index()][level.ordinal()].increment();
    }

    void refreshed(CacheName<?> cache, L1Tier.Refresh outcome) {
        refreshes[cache.index()][outcome.ordinal()].increment();
    }

    long refreshes(CacheName<?> cache, L1Tier.Refresh outcome) {
        return (long) refreshes[cache.index()][outcome.ordinal()].count();
    }

    /** Refreshes of every cache so far, by outcome ("replaced", "superseded", "failed"). */
    Map<String, Long> refreshCounts() {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (L1Tier.Refresh outcome : L1Tier.Refresh.values()) {
            long n = 0;
            for (CacheName<?> cache : catalog.all()) {
                n += refreshes(cache, outcome);
            }
            out.put(outcome.tag(), n);
        }
        return out;
    }

    /** Reads of every cache so far that skipped an untrusted L1. */
    long bypasses() {
        long n = 0;
        for (CacheName<?> cache : catalog.all()) {
            n += (long) bypasses[cache.index()].count();
        }
        return n;
    }

    /** A read L1 did not answer because it is not trusted: a bypass, and an L1 miss as far as hit ratios go. */
    void bypass(CacheName<?> cache) {
        bypasses[cache.index()].increment();
        misses[cache.index()][Level.L1.ordinal()].increment();
    }

    /** A read that passed L2 by because it is not read now: a bypass, and an L2 miss as far as hit ratios go. */
    void l2Bypass(CacheName<?> cache) {
        l2Bypasses[cache.index()].increment();
        misses[cache.index()][Level.L2.ordinal()].increment();
    }

    /** Reads of every cache so far that passed L2 by. */
    long l2Bypasses() {
        long n = 0;
        for (CacheName<?> cache : catalog.all()) {
            n += (long) l2Bypasses[cache.index()].count();
        }
        return n;
    }

    void decodeFailure(CacheName<?> cache) {
        decodeFailures[cache.index()].increment();
    }

    Timer l2Load(CacheName<?> cache) {
        return l2Loads[cache.index()];
    }

    Timer dbLoad(CacheName<?> cache) {
        return dbLoads[cache.index()];
    }

    void flush(String reason) {
        flushes.computeIfAbsent(reason, r -> Counter.builder(L1_FLUSHES)
                .description("Whole-L1 flushes by reason").tag("reason", r).register(registry)).increment();
    }

    void redisError(String operation) {
        redisErrors.computeIfAbsent(operation, op -> Counter.builder(REDIS_ERRORS)
                .description("Redis calls that failed, timed out or were refused by the open breaker")
                .tag("operation", op).register(registry)).increment();
    }

    Map<String, Double> flushCounts() {
        Map<String, Double> out = new java.util.TreeMap<>();
        flushes.forEach((reason, counter) -> out.put(reason, counter.count()));
        return out;
    }

    Map<String, Double> redisErrorCounts() {
        Map<String, Double> out = new java.util.TreeMap<>();
        redisErrors.forEach((op, counter) -> out.put(op, counter.count()));
        return out;
    }

    /**
     * Hits since the last {@link #resetBaseline()}. Under the reset's lock: a count read before a
     * reset and the baseline after it would subtract the newer baseline from the older count (a
     * negative count, a hit ratio outside [0, 1]; CacheMetricsTest).
     */
    synchronized long hits(CacheName<?> cache, Level level) {
        return Math.round(hits[cache.index()][level.ordinal()].count() - hitBaseline[cache.index()][level.ordinal()]);
    }

    synchronized long misses(CacheName<?> cache, Level level) {
        return Math.round(misses[cache.index()][level.ordinal()].count() - missBaseline[cache.index()][level.ordinal()]);
    }

    /** Hits and misses of one cache and level, both since the same reset. */
    record Window(long hits, long misses) {
    }

    /**
     * Every cache's hits and misses per level (indexed by {@link Level#ordinal()}) since the last
     * reset, all read under one lock: a reset between two reads would give a hit ratio of hits from
     * one window over misses from the next, and totals summed across windows.
     */
    synchronized Map<CacheName<?>, Window[]> windows() {
        Map<CacheName<?>, Window[]> out = new java.util.LinkedHashMap<>();
        for (CacheName<?> cache : catalog.all()) {
            Window[] levels = new Window[Level.values().length];
            for (Level level : Level.values()) {
                levels[level.ordinal()] = new Window(hits(cache, level), misses(cache, level));
            }
            out.put(cache, levels);
        }
        return out;
    }

    synchronized void resetBaseline() {
        for (CacheName<?> cache : catalog.all()) {
            for (Level level : Level.values()) {
                hitBaseline[cache.index()][level.ordinal()] = hits[cache.index()][level.ordinal()].count();
                missBaseline[cache.index()][level.ordinal()] = misses[cache.index()][level.ordinal()].count();
            }
        }
    }
}
