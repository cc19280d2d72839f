package dev.tandem.cache;

/**
 * {@code tandem.cache.mode}: the four strategies of the multi-layer caching study, chosen at
 * start-up. Every mode that keeps an L1 also listens to the invalidation channel, so {@code local}
 * is coherent across instances too (it just keeps no values in Redis).
 */
public enum CacheMode {
    /** No cache: every read goes to MySQL, exactly as without this package. */
    NONE,
    /** L1 only (Caffeine); Redis carries invalidations and heartbeats, no values. */
    LOCAL,
    /** L2 only (Redis). */
    REDIS,
    /** L1 in front of L2. */
    HYBRID;

    public boolean usesL1() {
        return this == LOCAL || this == HYBRID;
    }

    public boolean usesL2() {
        return this == REDIS || this == HYBRID;
    }

    public boolean usesRedis() {
        return this != NONE;
    }
}
