package dev.tandem.group;

import java.time.Instant;

public record MembershipView(long groupId, long userId, Instant joinTime) {
}
