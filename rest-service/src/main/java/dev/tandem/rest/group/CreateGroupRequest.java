package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import dev.tandem.group.GroupFields;
import dev.tandem.group.NewGroup;
import io.swagger.v3.oas.annotations.media.Schema;

import static dev.tandem.config.ProtoValues.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/**
 * The JSON of tandem.v1.CreateGroupRequest. Numbers are boxed so that an absent field becomes the
 * proto default, exactly as over gRPC, and the domain names it if that default is invalid. The
 * snake_case aliases are the proto field names, which protobuf's JSON parser accepts as well.
 * The {@code @Schema} constraints put NewGroup's and GroupFields' rules in the OpenAPI document;
 * the domain is what checks them.
 */
public record CreateGroupRequest(
        @Schema(requiredMode = REQUIRED, minLength = 3, maxLength = 100, description = "not blank")
        String name,
        @Schema(requiredMode = REQUIRED, minLength = 1, maxLength = 50, pattern = "^" + GroupFields.SUBJECT_REGEX + "$")
        String subject,
        @Schema(maxLength = 1000) String description,
        @Schema(requiredMode = REQUIRED, minimum = "2", maximum = "500") Integer capacity,
        @Schema(requiredMode = REQUIRED, minimum = "1", description = "an existing user")
        @JsonAlias("owner_id") Long ownerId) {

    NewGroup toCommand() {
        return new NewGroup(orEmpty(name), orEmpty(subject), orEmpty(description), orZero(capacity), orZero(ownerId));
    }
}
