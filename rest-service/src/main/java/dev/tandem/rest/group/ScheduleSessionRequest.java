package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import dev.tandem.group.NewSession;
import dev.tandem.rest.ProtoJson;

import static dev.tandem.rest.ProtoJson.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;

/**
 * The JSON of tandem.v1.ScheduleSessionRequest; the group id comes from the path. {@code startTime}
 * stays a string until {@link ProtoJson#timestampOrNull} parses it, so that a bad timestamp is
 * reported on {@code start_time} in the domain's words rather than as a JSON type error.
 */
public record ScheduleSessionRequest(
        String topic,
        @JsonAlias("start_time") String startTime,
        @JsonAlias("duration_minutes") Integer durationMinutes,
        String location) {

    NewSession toCommand(long groupId) {
        return new NewSession(groupId, orEmpty(topic), ProtoJson.timestampOrNull(startTime, "start_time"),
                orZero(durationMinutes), orEmpty(location));
    }
}
