package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.rest.ProtoJson;

import static dev.tandem.rest.ProtoJson.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;

/**
 * The JSON of tandem.v1.UpdateGroupRequest; the group id comes from the path.
 * {@code updateMask} is a FieldMask in its JSON form: one string of comma-separated paths.
 */
public record UpdateGroupRequest(
        GroupValues group,
        @JsonAlias("update_mask") String updateMask,
        @JsonAlias("expected_version") Long expectedVersion) {

    /**
     * The new values: a tandem.v1.Group of which only the four editable fields are read. The
     * output-only fields are accepted and ignored (AIP-134), so a client may send back a group as
     * it read it; anything that is not a field of Group is still rejected.
     */
    @JsonIgnoreProperties({"id", "ownerId", "owner_id", "ownerName", "owner_name", "memberCount", "member_count",
            "averageRating", "average_rating", "ratingCount", "rating_count", "nextSessions", "next_sessions",
            "version", "createTime", "create_time"})
    public record GroupValues(String name, String subject, String description, Integer capacity) {
    }

    GroupChanges toChanges(long id) {
        GroupValues values = group == null ? new GroupValues(null, null, null, null) : group;
        return new GroupChanges(id,
                new GroupFields(orEmpty(values.name()), orEmpty(values.subject()), orEmpty(values.description()),
                        orZero(values.capacity())),
                ProtoJson.fieldMaskPaths(updateMask),
                orZero(expectedVersion));
    }
}
