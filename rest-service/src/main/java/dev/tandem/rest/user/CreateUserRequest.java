package dev.tandem.rest.user;

import dev.tandem.user.NewUser;

import static dev.tandem.rest.ProtoJson.orEmpty;

/** The JSON of tandem.v1.CreateUserRequest. */
public record CreateUserRequest(String name, String email) {

    NewUser toCommand() {
        return new NewUser(orEmpty(name), orEmpty(email));
    }
}
