package dev.tandem.cache;

/**
 * A key of a scoped cache, whose entries are invalidated a whole scope at a time (every page,
 * every limit): a write cannot name the entries it changed, only the scope they belong to. Keys are
 * compared with {@code equals} in L1, and in L2 a key is its scope plus its {@link #keySuffix()}.
 */
public interface ScopedKey {

    /** The scope this key belongs to: what an invalidation of this cache names. */
    String scope();

    /**
     * What tells this key apart from the other keys of its scope, as the last part of its L2 key:
     * unique within the scope, and stable across builds (both services read the same keys).
     */
    String keySuffix();
}
