package dev.tandem.cache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The caches one {@link TieredCache} serves: every cache the features declare ({@code GroupCaches},
 * {@code UserCaches}), handed over when the cache is built. The domain's wiring makes it a bean
 * ({@code TandemDomainConfiguration}); this package knows no feature.
 *
 * <p>Why a list given at construction rather than caches registering themselves: the tiers and the
 * metrics size their per-cache arrays (L1 instances, invalidation counters, hit/miss counters) when
 * they are built, so the set must be complete then — a self-registering cache whose class happened to
 * load later would be missing, depending on class-initialisation order. Given here, it is explicit
 * and checked: a read or an invalidation of a cache outside the catalog fails at once.
 *
 * <p>Why reads stay free of lookups: each {@link CacheName} carries an index fixed when it is created
 * (its order of creation in the JVM, so the same constant has the same index in every TieredCache of
 * the JVM, as several test instances need). Per-cache state lives in arrays of {@link #slots()}
 * entries indexed by it; the hit path reads {@code array[cache.index()]}, exactly as with the fixed
 * list of caches before. Only {@link Invalidation#decode} (log rows name their caches) looks caches
 * up by name.
 */
public final class CacheCatalog {

    private final List<CacheName<?>> caches;
    private final CacheName<?>[] bySlot;
    private final Map<String, CacheName<?>> byName = new HashMap<>();

    private CacheCatalog(List<CacheName<?>> caches) {
        this.caches = List.copyOf(caches);
        int slots = 0;
        for (CacheName<?> cache : this.caches) {
            slots = Math.max(slots, cache.index() + 1);
            if (byName.putIfAbsent(cache.id(), cache) != null) {
                throw new IllegalArgumentException("two caches named " + cache.id());
            }
        }
        this.bySlot = new CacheName<?>[slots];
        for (CacheName<?> cache : this.caches) {
            bySlot[cache.index()] = cache;
        }
    }

    /** The caches of every list, in order (the order of the admin endpoint's status). */
    @SafeVarargs
    public static CacheCatalog of(Collection<? extends CacheName<?>>... lists) {
        List<CacheName<?>> all = new ArrayList<>();
        Arrays.stream(lists).forEach(all::addAll);
        return new CacheCatalog(all);
    }

    /** Every cache, in catalog order. */
    public List<CacheName<?>> all() {
        return caches;
    }

    /** The length of a per-cache array: every cache's {@link CacheName#index()} is below it. */
    int slots() {
        return bySlot.length;
    }

    boolean contains(CacheName<?> cache) {
        int index = cache.index();
        return index < bySlot.length && bySlot[index] == cache;
    }

    /** Throws IllegalArgumentException unless {@code cache} is in this catalog. */
    void require(CacheName<?> cache) {
        if (!contains(cache)) {
            throw new IllegalArgumentException("cache " + cache + " is not in the catalog " + caches);
        }
    }

    Optional<CacheName<?>> byName(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    @Override
    public String toString() {
        return caches.toString();
    }
}
