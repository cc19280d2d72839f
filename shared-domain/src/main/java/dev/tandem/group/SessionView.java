package dev.tandem.group;

import java.time.Instant;

public record SessionView(long id, long groupId, String topic, Instant startTime, int durationMinutes, String location) {
}
