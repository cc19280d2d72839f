package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import dev.tandem.group.NewSession;
import dev.tandem.rest.ProtoJson;
import io.swagger.v3.oas.annotations.media.Schema;

import static dev.tandem.config.ProtoValues.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/**
 * The JSON of tandem.v1.ScheduleSessionRequest; the group id comes from the path. {@code startTime}
 * stays a string until {@link ProtoJson#timestampOrNull} parses it, so that a bad timestamp is
 * reported on {@code start_time} in the domain's words rather than as a JSON type error. The
 * {@code @Schema} constraints put NewSession's rules in the OpenAPI document; the domain is what
 * checks them.
 */
public record ScheduleSessionRequest(
        @Schema(requiredMode = REQUIRED, minLength = 1, maxLength = 200, description = "not blank")
        String topic,
        @Schema(requiredMode = REQUIRED, format = "date-time", description = "an RFC 3339 timestamp in the future")
        @JsonAlias("start_time") String startTime,
        @Schema(requiredMode = REQUIRED, minimum = "15", maximum = "480")
        @JsonAlias("duration_minutes") Integer durationMinutes,
        @Schema(maxLength = 200) String location) {

    NewSession toCommand(long groupId) {
        return new NewSession(groupId, orEmpty(topic), ProtoJson.timestampOrNull(startTime, "start_time"),
                orZero(durationMinutes), orEmpty(location));
    }
}
