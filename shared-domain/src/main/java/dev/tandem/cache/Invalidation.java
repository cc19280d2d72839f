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
 * What one write made wrong, built by the write and applied after its transaction commits: to
 * this instance's L1 and to L2 synchronously, and to every other instance's L1 through the
 * channel. A target is either one entry of a keyed cache (a group, a user) or one subject of a
 * subject-scoped cache (every page, or every leaderboard, of that subject).
 */
public final class Invalidation {

    /** One thing to invalidate: {@code key} is an id for keyed caches and a subject otherwise. */
    record Target(CacheName<?> cache, Object key) {
    }

    private final Set<Target> targets = new LinkedHashSet<>();

    public static Invalidation create() {
        return new Invalidation();
    }

    public Invalidation group(long id) {
        targets.add(new Target(CacheName.GROUP, id));
        return this;
    }

    public Invalidation user(long id) {
        targets.add(new Target(CacheName.USER, id));
        return this;
    }

    /** Every ListGroups page of {@code subject}, and of the all-subjects listing that includes it. */
    public Invalidation pagesOf(String subject) {
        targets.add(new Target(CacheName.GROUPS_PAGE, subject));
        targets.add(new Target(CacheName.GROUPS_PAGE, ""));
        return this;
    }

    /** Every leaderboard of {@code subject}, and the all-subjects leaderboard. */
    public Invalidation leaderboardsOf(String subject) {
        targets.add(new Target(CacheName.LEADERBOARD, subject));
        targets.add(new Target(CacheName.LEADERBOARD, ""));
        return this;
    }

    Invalidation add(Target target) {
        targets.add(target);
        return this;
    }

    Invalidation addAll(Invalidation other) {
        targets.addAll(other.targets);
        return this;
    }

    Set<Target> targets() {
        return Collections.unmodifiableSet(targets);
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
     * The invalidation {@link #encode()} wrote; throws IllegalArgumentException for bytes it cannot
     * read (another build's format, a cache this build does not have), which the log's follower
     * treats as "flush everything".
     */
    static Invalidation decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            if (in.readByte() != FORMAT) {
                throw new IllegalArgumentException("unknown invalidation format " + bytes[0]);
            }
            int n = in.readUnsignedShort();
            Invalidation invalidation = create();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                CacheName<?> cache = CacheName.byName(name)
                        .orElseThrow(() -> new IllegalArgumentException("unknown cache " + name));
                Object key = in.readByte() == 0 ? (Object) in.readLong() : in.readUTF();
                invalidation.add(new Target(cache, key));
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
