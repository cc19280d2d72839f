package dev.tandem.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.function.Function;

/**
 * What a wire derives from a cached read model (its protobuf message, its encoded bytes, its entity
 * tag), derived once per instance and kept as long as the instance lives.
 *
 * <p>Why per instance, and why that is "with the L1 entry": an L1 hit returns the very instance the
 * entry holds, and an invalidation replaces the entry with a new instance read afterwards, so a form
 * found here is always the form of the value the cache answered — it cannot outlive a write. The
 * keys are weak and compared by identity (Caffeine's {@code weakKeys}): a form leaves with the last
 * reference to its read model, the cache needs no hook into the tiers, and two equal read models
 * read at different times never share a form. A read model that is not cached (no-cache mode, a
 * write's answer) is derived once and forgotten.
 *
 * <p>A form must not refer to its read model, or the weak key could never be collected.
 */
public final class PerEntry<V, F> {

    /** Upkeep on the caller's thread, as in {@link L1Tier}: every warm read comes here too. */
    private final Cache<V, F> forms = Caffeine.newBuilder().executor(Runnable::run).weakKeys().build();
    private final Function<? super V, ? extends F> derive;

    public PerEntry(Function<? super V, ? extends F> derive) {
        this.derive = derive;
    }

    public F of(V value) {
        return forms.get(value, derive);
    }
}
