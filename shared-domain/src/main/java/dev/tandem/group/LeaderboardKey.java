package dev.tandem.group;

import dev.tandem.cache.SubjectScoped;

/** One leaderboard in the cache: the subject ("" for all) and the effective limit. */
public record LeaderboardKey(String subject, int limit) implements SubjectScoped {

    /** {@code <limit>}, the end of the leaderboard's L2 key. */
    @Override
    public String keySuffix() {
        return Integer.toString(limit);
    }
}
