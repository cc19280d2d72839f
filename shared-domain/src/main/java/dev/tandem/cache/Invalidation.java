package dev.tandem.cache;

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

    @Override
    public String toString() {
        return targets.toString();
    }
}
