package dev.tandem.group;

import dev.tandem.cache.ScopedKey;

/** One leaderboard in the cache: the subject ("" for all) and the effective limit. */
public record LeaderboardKey(String subject, int limit) implements ScopedKey {

    /** A leaderboard's scope is its subject (see {@link GroupCaches}). */
    @Override
    public String scope() {
        return subject;
    }

    /** {@code <limit>}, the end of the leaderboard's L2 key. */
    @Override
    public String keySuffix() {
        return Integer.toString(limit);
    }
}
