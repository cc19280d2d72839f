package dev.tandem.cache;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One cache: its name, the type of its values, how its keys are invalidated, how its values travel
 * through Redis ({@link CacheCodec}) and, when a value stops being true by the passage of time alone,
 * for how long it may be kept ({@link ValidFor}). The name is the {@code cache} tag of every metric,
 * part of every L2 key and of every invalidation-log row, so it must not change.
 *
 * <p>Features declare their caches as constants ({@code GroupCaches}, {@code UserCaches}) and hand
 * them to the cache in a {@link CacheCatalog}; this package knows no feature. A <em>keyed</em> cache
 * is keyed by id ({@code Long}) and invalidated key by key (tombstones in L2); a <em>scoped</em>
 * cache is keyed by {@link ScopedKey}s and invalidated a scope at a time, which in L2 is a new
 * generation for that scope (see {@link L2Tier}).
 *
 * <p>Every cache gets a small index when it is created, the order of creation in this JVM: the tiers
 * and the metrics keep their per-cache state in arrays by that index, so a read never looks a cache
 * up by name (see {@link CacheCatalog}).
 */
public final class CacheName<V> {

    /**
     * How long a value stays true by the passage of time alone, when that is less than forever (a
     * group lists its next sessions, so it must not outlive the start of the first one). The entry's
     * TTL in L1 and L2 is the shorter of this and the configured one; zero or negative means "do
     * not store".
     */
    @FunctionalInterface
    public interface ValidFor<V> {
        Optional<Duration> validFor(V value, Instant now);

        /** Values that only a write makes wrong. */
        static <V> ValidFor<V> untilWritten() {
            return (value, now) -> Optional.empty();
        }
    }

    private static final AtomicInteger NEXT_INDEX = new AtomicInteger();

    /** A cache keyed by id, invalidated id by id. */
    public static <V> CacheName<V> keyed(String name, CacheCodec<V> codec) {
        return new CacheName<>(name, false, codec, ValidFor.untilWritten());
    }

    /** A cache keyed by id, invalidated id by id, whose values also expire by {@code validFor}. */
    public static <V> CacheName<V> keyed(String name, CacheCodec<V> codec, ValidFor<V> validFor) {
        return new CacheName<>(name, false, codec, validFor);
    }

    /** A cache keyed by {@link ScopedKey}s, invalidated a scope at a time. */
    public static <V> CacheName<V> scoped(String name, CacheCodec<V> codec) {
        return new CacheName<>(name, true, codec, ValidFor.untilWritten());
    }

    /** A scoped cache whose values also expire by {@code validFor}. */
    public static <V> CacheName<V> scoped(String name, CacheCodec<V> codec, ValidFor<V> validFor) {
        return new CacheName<>(name, true, codec, validFor);
    }

    private final int index;
    private final String name;
    private final boolean scoped;
    private final CacheCodec<V> codec;
    private final ValidFor<V> validFor;

    private CacheName(String name, boolean scoped, CacheCodec<V> codec, ValidFor<V> validFor) {
        if (name == null || name.isEmpty() || name.contains(":") || name.contains("{") || name.contains("}")) {
            // The name is part of L2 keys, where ':' separates parts and braces are the cluster hash tag.
            throw new IllegalArgumentException("a cache name is non-empty, without ':', '{' or '}': " + name);
        }
        this.name = name;
        this.scoped = scoped;
        this.codec = java.util.Objects.requireNonNull(codec, "codec");
        this.validFor = java.util.Objects.requireNonNull(validFor, "validFor");
        this.index = NEXT_INDEX.getAndIncrement();
    }

    /** This cache's slot in per-cache arrays (see {@link CacheCatalog#slots()}). */
    int index() {
        return index;
    }

    public String id() {
        return name;
    }

    /** Whether this cache is keyed by {@link ScopedKey}s (else by id). */
    boolean scoped() {
        return scoped;
    }

    byte[] encode(V value) {
        return codec.encode(value);
    }

    V decode(byte[] bytes) throws IOException {
        return codec.decode(bytes);
    }

    /**
     * What an invalidation of this key is addressed to: the key itself, or for scoped caches its
     * {@link ScopedKey#scope()}. L1 race detection and L2 generations both work at this grain.
     */
    Object scopeOf(Object key) {
        return scoped ? ((ScopedKey) key).scope() : key;
    }

    /** See {@link ValidFor}. */
    Optional<Duration> validFor(V value, Instant now) {
        return validFor.validFor(value, now);
    }

    @Override
    public String toString() {
        return name;
    }
}
