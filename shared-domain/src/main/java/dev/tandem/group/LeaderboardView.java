package dev.tandem.group;

import java.util.List;

public record LeaderboardView(String subject, List<GroupSummary> groups) {
}
