package dev.tandem.rest.group;

import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupService;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.group.MembershipView;
import dev.tandem.group.RatingView;
import dev.tandem.group.SessionView;
import dev.tandem.rest.representation.IfMatch;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;

import static dev.tandem.config.ProtoValues.orEmpty;
import static dev.tandem.rest.ProtoJson.orZero;
import static dev.tandem.rest.representation.ProtobufRepresentation.PROTOBUF_VALUE;
import static dev.tandem.rest.representation.ProtobufRepresentation.X_PROTOBUF_VALUE;

/**
 * The group operations of tandem.v1.StudyGroupService on the routes of its google.api.http
 * annotations. Each handler parses, calls {@link GroupService} and returns its read model, whose
 * field names are already the proto JSON names. Path variables carry the proto field names
 * ({@code group_id}, {@code user_id}) so that a bad one is reported as the gRPC wire would name it.
 * The OpenAPI operation ids are the RPC names; {@code @ResponseStatus} only documents the status
 * that the returned ResponseEntity sets. JSON is the default representation; a client that asks for
 * protobuf gets, and may send, the tandem.v1 messages themselves ({@link GroupRepresentations}).
 */
@RestController
@Tag(name = "StudyGroupService")
@RequestMapping(path = "/api/v1", produces = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
public class GroupController {

    private static final String IF_MATCH_DOC = "Perform the write only if the group is still as read: one or more of "
            + "its ETags (GetGroup's, JSON or protobuf), or * (it exists). Otherwise 412 FAILED_PRECONDITION, nothing done. "
            + "Checked as well as expected_version.";

    /**
     * What a route that answers 204 produces: anything, so that only an Accept refusing everything
     * ({@code *}{@code /*;q=0}) refuses it. Accept is about the answer's content (RFC 9110 12.5.1) and
     * a 204 has none; under the class's types a DELETE sent with a browser's {@code Accept: text/html}
     * was refused with 406 and not performed. Its failures are problem+json whatever was asked, as
     * every route's are.
     */
    private static final String NO_CONTENT_TO_NEGOTIATE = MediaType.ALL_VALUE;

    private final GroupService groups;
    private final IfMatch ifMatch;

    public GroupController(GroupService groups, IfMatch ifMatch) {
        this.groups = groups;
        this.ifMatch = ifMatch;
    }

    @Operation(operationId = "GetGroup")
    @GetMapping("/groups/{id}")
    public GroupView get(@PathVariable long id) {
        return groups.get(id);
    }

    /**
     * Query parameters under their proto names; the lowerCamelCase spellings are accepted too, one or
     * the other (both is a parameter given twice: SingleValuedParameters).
     */
    @Operation(operationId = "ListGroups")
    @GetMapping("/groups")
    public GroupPage list(@RequestParam(required = false) String subject,
                          @RequestParam(name = "page_size", required = false) Integer pageSize,
                          @RequestParam(name = "pageSize", required = false) Integer pageSizeCamel,
                          @RequestParam(name = "page_token", required = false) String pageToken,
                          @RequestParam(name = "pageToken", required = false) String pageTokenCamel) {
        return groups.list(orEmpty(subject),
                orZero(pageSize != null ? pageSize : pageSizeCamel),
                orEmpty(pageToken != null ? pageToken : pageTokenCamel));
    }

    @Operation(operationId = "CreateGroup")
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping(path = "/groups", consumes = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
    public ResponseEntity<GroupView> create(@RequestBody CreateGroupRequest request) {
        GroupView created = groups.create(request.toCommand());
        return ResponseEntity.created(URI.create("/api/v1/groups/" + created.id())).body(created);
    }

    @Operation(operationId = "UpdateGroup")
    @PatchMapping(path = "/groups/{id}", consumes = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
    public GroupView update(@PathVariable long id, @RequestBody UpdateGroupRequest request,
                            @Parameter(description = IF_MATCH_DOC)
                            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatchField) {
        return groups.update(request.toChanges(id), ifMatch.condition(ifMatchField, "group", id));
    }

    /** Without {@code expected_version} (or with 0) the group is deleted whatever its version. */
    @Operation(operationId = "DeleteGroup")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @DeleteMapping(path = "/groups/{id}", produces = NO_CONTENT_TO_NEGOTIATE)
    public ResponseEntity<Void> delete(@PathVariable long id,
                                       @RequestParam(name = "expected_version", required = false) Long expectedVersion,
                                       @RequestParam(name = "expectedVersion", required = false) Long expectedVersionCamel,
                                       @Parameter(description = IF_MATCH_DOC)
                                       @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatchField) {
        groups.delete(id, orZero(expectedVersion != null ? expectedVersion : expectedVersionCamel),
                ifMatch.condition(ifMatchField, "group", id));
        return ResponseEntity.noContent().build();
    }

    @Operation(operationId = "JoinGroup")
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping(path = "/groups/{group_id}/members", consumes = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
    public ResponseEntity<MembershipView> join(@PathVariable("group_id") long groupId,
                                               @RequestBody JoinGroupRequest request) {
        MembershipView joined = groups.join(groupId, orZero(request.userId()));
        return ResponseEntity.created(URI.create("/api/v1/groups/" + groupId + "/members/" + joined.userId()))
                .body(joined);
    }

    @Operation(operationId = "LeaveGroup")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @DeleteMapping(path = "/groups/{group_id}/members/{user_id}", produces = NO_CONTENT_TO_NEGOTIATE)
    public ResponseEntity<Void> leave(@PathVariable("group_id") long groupId, @PathVariable("user_id") long userId) {
        groups.leave(groupId, userId);
        return ResponseEntity.noContent().build();
    }

    /** A rating is identified by its group and its user, as a membership is. */
    @Operation(operationId = "RateGroup")
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping(path = "/groups/{group_id}/ratings", consumes = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
    public ResponseEntity<RatingView> rate(@PathVariable("group_id") long groupId,
                                           @RequestBody RateGroupRequest request) {
        RatingView rating = groups.rate(request.toCommand(groupId));
        return ResponseEntity.created(URI.create("/api/v1/groups/" + groupId + "/ratings/" + rating.userId()))
                .body(rating);
    }

    @Operation(operationId = "ScheduleSession")
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping(path = "/groups/{group_id}/sessions", consumes = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
    public ResponseEntity<SessionView> schedule(@PathVariable("group_id") long groupId,
                                                @RequestBody ScheduleSessionRequest request) {
        SessionView session = groups.schedule(request.toCommand(groupId));
        return ResponseEntity.created(URI.create("/api/v1/groups/" + groupId + "/sessions/" + session.id()))
                .body(session);
    }

    @Operation(operationId = "GetLeaderboard")
    @GetMapping("/leaderboard")
    public LeaderboardView leaderboard(@RequestParam(required = false) String subject,
                                       @RequestParam(required = false) Integer limit) {
        return groups.leaderboard(orEmpty(subject), orZero(limit));
    }
}
