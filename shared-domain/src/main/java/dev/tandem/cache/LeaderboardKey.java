package dev.tandem.cache;

/** One leaderboard: the subject ("" for all) and the effective limit. */
public record LeaderboardKey(String subject, int limit) implements SubjectScoped {
}
