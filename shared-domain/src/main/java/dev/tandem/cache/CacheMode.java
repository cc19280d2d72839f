package dev.tandem.cache;

/**
 * {@code tandem.cache.mode}: the four strategies of the multi-layer caching study, chosen at
 * start-up. Every mode but {@code none} follows the invalidation log in MySQL, so {@code local} is
 * coherent across instances too, without Redis.
 */
public enum CacheMode {
    /** No cache: every read goes to MySQL, exactly as without this package. */
    NONE,
    /** L1 only (Caffeine); no Redis at all. */
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
}
