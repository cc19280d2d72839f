package dev.tandem.group;

/** One search result row: what ListGroups and the leaderboard return per group. */
public record GroupSummary(long id, String name, String subject, int capacity, int memberCount, double averageRating) {
}
