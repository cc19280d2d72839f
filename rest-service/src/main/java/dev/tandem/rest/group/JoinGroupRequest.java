package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.swagger.v3.oas.annotations.media.Schema;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/**
 * The JSON of tandem.v1.JoinGroupRequest; the group id comes from the path. The {@code @Schema}
 * constraint documents the domain's rule; the domain is what checks it.
 */
public record JoinGroupRequest(
        @Schema(requiredMode = REQUIRED, minimum = "1", description = "an existing user")
        @JsonAlias("user_id") Long userId) {
}
