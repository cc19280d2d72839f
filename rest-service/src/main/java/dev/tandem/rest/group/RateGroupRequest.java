package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import dev.tandem.group.NewRating;

import static dev.tandem.rest.ProtoJson.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;

/** The JSON of tandem.v1.RateGroupRequest; the group id comes from the path. */
public record RateGroupRequest(@JsonAlias("user_id") Long userId, Integer stars, String comment) {

    NewRating toCommand(long groupId) {
        return new NewRating(groupId, orZero(userId), orZero(stars), orEmpty(comment));
    }
}
