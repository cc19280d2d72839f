package dev.tandem.cache;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What one write made wrong, built by the write and applied after its transaction commits: logged
 * in the write's transaction, then applied to L2 and to this instance's L1, and by every other
 * instance's log follower to its L1 (see {@link WritePath}). A target is either one entry of a keyed
 * cache (an id) or one scope of a scoped cache (every entry of that scope).
 *
 * <p>Features say what their writes touch with helpers of their own that build invalidations
 * ({@code GroupCaches.pagesOf(subject)}, ...); this class only knows caches, keys and scopes.
 */
public final class Invalidation {

    /** One thing to invalidate: {@code key} is an id for keyed caches, a scope for scoped ones. */
    record Target(CacheName<?> cache, Object key) {
    }

    private final Set<Target> targets = new LinkedHashSet<>();

    public static Invalidation create() {
        return new Invalidation();
    }

    /**
     * Adds one target: for a keyed cache the entry's id (a {@code Long}, as the cache is read with),
     * for a scoped cache a scope (a {@code String}, as {@link ScopedKey#scope()} returns it).
     */
    public Invalidation add(CacheName<?> cache, Object key) {
        if (cache.scoped() ? !(key instanceof String) : !(key instanceof Long || key instanceof String)) {
            throw new IllegalArgumentException("cache " + cache + " is invalidated by "
                    + (cache.scoped() ? "scope (a String)" : "id (a Long or a String)") + ", not by " + key);
        }
        targets.add(new Target(cache, key));
        return this;
    }

    /** Adds every target of {@code other}. */
    public Invalidation and(Invalidation other) {
        targets.addAll(other.targets);
        return this;
    }

    Set<Target> targets() {
        return Collections.unmodifiableSet(targets);
    }

    /** Whether {@code key} of {@code cache} is one of the targets. */
    public boolean names(CacheName<?> cache, Object key) {
        return targets.contains(new Target(cache, key));
    }

    boolean isEmpty() {
        return targets.isEmpty();
    }

    /** The targets as bytes, for the invalidation log: a format byte, then each cache's name and key. */
    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeShort(targets.size());
            for (Target t : targets) {
                out.writeUTF(t.cache().id());
                if (t.key() instanceof Long id) {
                    out.writeByte(0);
                    out.writeLong(id);
                } else {
                    out.writeByte(1);
                    out.writeUTF((String) t.key());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The invalidation {@link #encode()} wrote, its caches looked up by name in {@code catalog};
     * throws IllegalArgumentException for bytes it cannot read (another build's format, a cache this
     * build does not have), which the log's follower treats as "flush everything".
     */
    static Invalidation decode(byte[] bytes, CacheCatalog catalog) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            if (in.readByte() != FORMAT) {
                throw new IllegalArgumentException("unknown invalidation format " + bytes[0]);
            }
            int n = in.readUnsignedShort();
            Invalidation invalidation = create();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                CacheName<?> cache = catalog.byName(name)
                        .orElseThrow(() -> new IllegalArgumentException("unknown cache " + name));
                Object key = in.readByte() == 0 ? (Object) in.readLong() : in.readUTF();
                invalidation.add(cache, key);
            }
            return invalidation;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("unreadable invalidation", e);
        }
    }

    private static final byte FORMAT = 1;

    @Override
    public String toString() {
        return targets.toString();
    }
}
