package dev.tandem.group;

import java.time.Instant;

public record RatingView(long groupId, long userId, int stars, String comment, Instant createTime) {
}
