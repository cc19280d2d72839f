package dev.tandem.rest.user;

import dev.tandem.user.NewUser;
import io.swagger.v3.oas.annotations.media.Schema;

import static dev.tandem.config.ProtoValues.orEmpty;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/**
 * The JSON of tandem.v1.CreateUserRequest. The {@code @Schema} constraints put NewUser's rules in
 * the OpenAPI document; the domain is what checks them.
 */
public record CreateUserRequest(
        @Schema(requiredMode = REQUIRED, minLength = 1, maxLength = 100, description = "not blank")
        String name,
        @Schema(requiredMode = REQUIRED, format = "email", minLength = 1, maxLength = 254,
                description = "an e-mail address no other user has")
        String email) {

    NewUser toCommand() {
        return new NewUser(orEmpty(name), orEmpty(email));
    }
}
