package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import dev.tandem.group.NewRating;
import io.swagger.v3.oas.annotations.media.Schema;

import static dev.tandem.config.ProtoValues.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/**
 * The JSON of tandem.v1.RateGroupRequest; the group id comes from the path. The {@code @Schema}
 * constraints put NewRating's rules in the OpenAPI document; the domain is what checks them.
 */
public record RateGroupRequest(
        @Schema(requiredMode = REQUIRED, minimum = "1", description = "an existing user")
        @JsonAlias("user_id") Long userId,
        @Schema(requiredMode = REQUIRED, minimum = "1", maximum = "5") Integer stars,
        @Schema(maxLength = 500) String comment) {

    NewRating toCommand(long groupId) {
        return new NewRating(groupId, orZero(userId), orZero(stars), orEmpty(comment));
    }
}
