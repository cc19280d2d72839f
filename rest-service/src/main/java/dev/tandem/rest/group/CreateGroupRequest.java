package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import dev.tandem.group.NewGroup;

import static dev.tandem.rest.ProtoJson.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;

/**
 * The JSON of tandem.v1.CreateGroupRequest. Numbers are boxed so that an absent field becomes the
 * proto default, exactly as over gRPC, and the domain names it if that default is invalid. The
 * snake_case aliases are the proto field names, which protobuf's JSON parser accepts as well.
 */
public record CreateGroupRequest(
        String name,
        String subject,
        String description,
        Integer capacity,
        @JsonAlias("owner_id") Long ownerId) {

    NewGroup toCommand() {
        return new NewGroup(orEmpty(name), orEmpty(subject), orEmpty(description), orZero(capacity), orZero(ownerId));
    }
}
