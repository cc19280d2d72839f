package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.rest.ProtoJson;
import io.swagger.v3.oas.annotations.media.Schema;

import static dev.tandem.config.ProtoValues.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/**
 * The JSON of tandem.v1.UpdateGroupRequest; the group id comes from the path.
 * {@code updateMask} is a FieldMask in its JSON form: one string of comma-separated paths. The
 * {@code @Schema} constraints put GroupFields' rules in the OpenAPI document; the domain is what
 * checks them, on the group as the update leaves it.
 */
public record UpdateGroupRequest(
        GroupValues group,
        @Schema(requiredMode = REQUIRED, pattern = UPDATE_MASK_PATTERN,
                description = "the fields of group to apply, comma-separated")
        @JsonAlias("update_mask") String updateMask,
        @Schema(requiredMode = REQUIRED, minimum = "1", description = "the version the caller read (a new group "
                + "is at 1); a newer one on the server is 409 (gRPC ABORTED), none or 0 is 400")
        @JsonAlias("expected_version") Long expectedVersion) {

    /** One or more of the paths GroupChanges.UPDATABLE allows, comma-separated, spaces around them allowed. */
    static final String UPDATE_MASK_PATTERN =
            "^ *(name|subject|description|capacity) *(, *(name|subject|description|capacity) *)*$";

    /**
     * The new values: a tandem.v1.Group of which only the four editable fields are read. The
     * output-only fields are accepted and ignored (AIP-134), so a client may send back a group as
     * it read it; anything that is not a field of Group is still rejected.
     */
    @JsonIgnoreProperties({"id", "ownerId", "owner_id", "ownerName", "owner_name", "memberCount", "member_count",
            "averageRating", "average_rating", "ratingCount", "rating_count", "nextSessions", "next_sessions",
            "version", "createTime", "create_time"})
    public record GroupValues(
            @Schema(minLength = 3, maxLength = 100, description = "not blank") String name,
            @Schema(minLength = 1, maxLength = 50, pattern = "^" + GroupFields.SUBJECT_REGEX + "$") String subject,
            @Schema(maxLength = 1000) String description,
            @Schema(minimum = "2", maximum = "500") Integer capacity) {
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
