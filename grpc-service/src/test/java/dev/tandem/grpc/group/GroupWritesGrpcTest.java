package dev.tandem.grpc.group;

import com.google.protobuf.FieldMask;
import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.testsupport.Concurrently;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** CreateGroup, UpdateGroup and DeleteGroup over the wire. */
class GroupWritesGrpcTest extends GrpcIntegrationTest {

    private static final CreateGroupRequest VALID = CreateGroupRequest.newBuilder()
            .setName("Graph theory").setSubject("algorithms").setDescription("Cliques and colourings")
            .setCapacity(10).setOwnerId(7).build();

    // ---- CreateGroup ---------------------------------------------------------------------------

    @Test
    void createdGroupComesBackWithItsOwnerAsFirstMemberAndReadsBackTheSame() {
        String ownerName = jdbc.sql("SELECT name FROM users WHERE id = 7").query(String.class).single();

        Group created = api().createGroup(VALID);

        assertThat(created.getId()).isPositive();
        assertThat(created.getName()).isEqualTo("Graph theory");
        assertThat(created.getSubject()).isEqualTo("algorithms");
        assertThat(created.getDescription()).isEqualTo("Cliques and colourings");
        assertThat(created.getCapacity()).isEqualTo(10);
        assertThat(created.getOwnerId()).isEqualTo(7);
        assertThat(created.getOwnerName()).isEqualTo(ownerName);
        assertThat(created.getMemberCount()).isEqualTo(1);
        assertThat(created.getRatingCount()).isZero();
        assertThat(created.getAverageRating()).isZero();
        assertThat(created.getNextSessionsList()).isEmpty();
        assertThat(created.getVersion()).isZero();
        assertThat(created.hasCreateTime()).isTrue();
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(created.getId()).build())).isEqualTo(created);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 500})
    void capacityBoundsAreAccepted(int capacity) {
        assertThat(api().createGroup(VALID.toBuilder().setCapacity(capacity).build()).getCapacity()).isEqualTo(capacity);
    }

    @Test
    void descriptionMayBeOmitted() {
        assertThat(api().createGroup(VALID.toBuilder().clearDescription().build()).getDescription()).isEmpty();
    }

    static Stream<Arguments> invalidCreateGroupRequests() {
        return Stream.of(
                invalid("name", r -> r.setName("")),
                invalid("name", r -> r.setName("   ")),
                invalid("name", r -> r.setName("ab")),
                invalid("name", r -> r.setName("n".repeat(101))),
                invalid("subject", r -> r.setSubject("")),
                invalid("subject", r -> r.setSubject("Not A Subject")),
                invalid("subject", r -> r.setSubject("double--hyphen")),
                invalid("subject", r -> r.setSubject("s".repeat(51))),
                invalid("description", r -> r.setDescription("d".repeat(1001))),
                invalid("capacity", r -> r.setCapacity(1)),
                invalid("capacity", r -> r.setCapacity(0)),
                invalid("capacity", r -> r.setCapacity(501)),
                invalid("capacity", r -> r.setCapacity(-5)),
                invalid("owner_id", r -> r.setOwnerId(0)),
                invalid("owner_id", r -> r.setOwnerId(-1)));
    }

    private static Arguments invalid(String field, UnaryOperator<CreateGroupRequest.Builder> change) {
        return arguments(field, change.apply(VALID.toBuilder()).build());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("invalidCreateGroupRequests")
    void invalidFieldIsNamedAndNothingIsWritten(String field, CreateGroupRequest request) {
        long groupsBefore = count("study_groups");
        long membersBefore = count("group_members");

        GrpcFailure.of(() -> api().createGroup(request)).assertInvalid(field);

        assertThat(count("study_groups")).isEqualTo(groupsBefore);
        assertThat(count("group_members")).isEqualTo(membersBefore);
    }

    @Test
    void everyInvalidFieldIsNamedAtOnce() {
        CreateGroupRequest request = CreateGroupRequest.newBuilder().setName("x").setSubject("Bad Subject")
                .setDescription("d".repeat(1001)).setCapacity(1).setOwnerId(0).build();

        GrpcFailure failure = GrpcFailure.of(() -> api().createGroup(request))
                .assertInvalid("name", "subject", "description", "capacity", "owner_id");
        assertThat(failure.message()).isNotBlank();
    }

    @Test
    void unknownOwnerIsNotFoundAndNothingIsWritten() {
        long before = count("study_groups");
        GrpcFailure.of(() -> api().createGroup(VALID.toBuilder().setOwnerId(999_999).build()))
                .assertCode(Status.Code.NOT_FOUND)
                .assertResource("user", "999999");
        assertThat(count("study_groups")).isEqualTo(before);
    }

    // ---- UpdateGroup ---------------------------------------------------------------------------

    @Test
    void updateChangesOnlyTheMaskedFieldsAndBumpsTheVersion() {
        Group before = get(1);
        Group updated = api().updateGroup(update(1, 0, Group.newBuilder()
                .setName("Renamed circle").setCapacity(499).setDescription("ignored: not in the mask").build(),
                "name", "capacity"));

        assertThat(updated.getName()).isEqualTo("Renamed circle");
        assertThat(updated.getCapacity()).isEqualTo(499);
        assertThat(updated.getDescription()).isEqualTo(before.getDescription());
        assertThat(updated.getSubject()).isEqualTo(before.getSubject());
        assertThat(updated.getVersion()).isEqualTo(before.getVersion() + 1);
        assertThat(get(1)).isEqualTo(updated);
    }

    @Test
    void updateCanClearTheDescription() {
        Group updated = api().updateGroup(update(2, 0, Group.getDefaultInstance(), "description"));
        assertThat(updated.getDescription()).isEmpty();
    }

    static Stream<Arguments> invalidUpdates() {
        return Stream.of(
                arguments("update_mask", update(1, 0, Group.newBuilder().setName("New name").build())),
                arguments("update_mask", update(1, 0, Group.newBuilder().setOwnerId(2).build(), "owner_id")),
                arguments("update_mask", update(1, 0, Group.newBuilder().setName("New name").build(), "name", "version")),
                arguments("update_mask", update(1, 0, Group.newBuilder().setName("New name").build(), "group.name")),
                arguments("expected_version", update(1, -1, Group.newBuilder().setName("New name").build(), "name")),
                arguments("group.name", update(1, 0, Group.newBuilder().setName("ab").build(), "name")),
                arguments("group.name", update(1, 0, Group.getDefaultInstance(), "name")),
                arguments("group.subject", update(1, 0, Group.newBuilder().setSubject("Upper").build(), "subject")),
                arguments("group.description", update(1, 0, Group.newBuilder().setDescription("d".repeat(1001)).build(), "description")),
                arguments("group.capacity", update(1, 0, Group.newBuilder().setCapacity(1).build(), "capacity")),
                arguments("group.capacity", update(1, 0, Group.newBuilder().setCapacity(501).build(), "capacity")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidUpdates")
    void invalidUpdateIsNamedAndChangesNothing(String field, UpdateGroupRequest request) {
        Group before = get(1);
        GrpcFailure.of(() -> api().updateGroup(request)).assertInvalid(field);
        assertThat(get(1)).isEqualTo(before);
    }

    @Test
    void updatingAnUnknownGroupIsNotFound() {
        GrpcFailure.of(() -> api().updateGroup(update(999_999, 0, Group.newBuilder().setName("New name").build(), "name")))
                .assertCode(Status.Code.NOT_FOUND)
                .assertResource("group", "999999");
    }

    @Test
    void staleVersionIsAbortedAndTheRowKeepsTheWinnersData() {
        Group winner = api().updateGroup(update(1, 0, Group.newBuilder().setName("Winner's name").build(), "name"));
        assertThat(winner.getVersion()).isEqualTo(1);

        GrpcFailure.of(() -> api().updateGroup(update(1, 0, Group.newBuilder().setName("Loser's name").build(), "name")))
                .assertCode(Status.Code.ABORTED)
                .assertResource("group", "1");

        assertThat(get(1)).isEqualTo(winner);
    }

    @Test
    void ofTwoConcurrentUpdatesAtOneVersionExactlyOneWins() throws Exception {
        List<Callable<Group>> updates = List.of(
                () -> api().updateGroup(update(3, 0, Group.newBuilder().setName("First writer").build(), "name")),
                () -> api().updateGroup(update(3, 0, Group.newBuilder().setName("Second writer").build(), "name")));

        List<Object> outcomes = Concurrently.run(updates);

        List<Group> won = outcomes.stream().filter(Group.class::isInstance).map(Group.class::cast).toList();
        List<StatusRuntimeException> lost = outcomes.stream().filter(StatusRuntimeException.class::isInstance)
                .map(StatusRuntimeException.class::cast).toList();
        assertThat(won).hasSize(1);
        assertThat(lost).singleElement().satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ABORTED));
        assertThat(get(3)).isEqualTo(won.getFirst());
    }

    @Test
    void capacityBelowTheMemberCountIsAFailedPrecondition() {
        long id = jdbc.sql("SELECT group_id FROM group_members GROUP BY group_id HAVING COUNT(*) >= 3 ORDER BY group_id LIMIT 1")
                .query(Long.class).single();
        Group group = get(id);
        GrpcFailure.of(() -> api().updateGroup(update(id, 0, Group.newBuilder()
                        .setCapacity(group.getMemberCount() - 1).build(), "capacity")))
                .assertCode(Status.Code.FAILED_PRECONDITION);
        assertThat(get(id)).isEqualTo(group);
    }

    @Test
    void capacityEqualToTheMemberCountIsAccepted() {
        Group group = get(1);
        int capacity = Math.max(2, group.getMemberCount());
        assertThat(api().updateGroup(update(1, 0, Group.newBuilder().setCapacity(capacity).build(), "capacity"))
                .getCapacity()).isEqualTo(capacity);
    }

    // ---- DeleteGroup ---------------------------------------------------------------------------

    @Test
    void deletedGroupIsGoneWithItsMembersSessionsAndRatings() {
        assertThat(count("group_members WHERE group_id = 1")).isPositive();

        api().deleteGroup(DeleteGroupRequest.newBuilder().setId(1).build());

        GrpcFailure.of(() -> get(1)).assertCode(Status.Code.NOT_FOUND);
        assertThat(count("group_members WHERE group_id = 1")).isZero();
        assertThat(count("study_sessions WHERE group_id = 1")).isZero();
        assertThat(count("ratings WHERE group_id = 1")).isZero();
    }

    @Test
    void deleteAtTheCurrentVersionSucceeds() {
        api().updateGroup(update(1, 0, Group.newBuilder().setName("Now at version 1").build(), "name"));
        api().deleteGroup(DeleteGroupRequest.newBuilder().setId(1).setExpectedVersion(1).build());
        GrpcFailure.of(() -> get(1)).assertCode(Status.Code.NOT_FOUND);
    }

    @Test
    void deleteAtAStaleVersionIsAbortedAndKeepsTheGroup() {
        Group current = api().updateGroup(update(1, 0, Group.newBuilder().setName("Now at version 1").build(), "name"));
        long groupsBefore = count("study_groups");

        // Version 0 is "any version" on the wire, so the stale version the caller read must be non-zero.
        api().updateGroup(update(1, 1, Group.newBuilder().setName("Now at version 2").build(), "name"));
        Group latest = get(1);
        GrpcFailure.of(() -> api().deleteGroup(DeleteGroupRequest.newBuilder().setId(1)
                        .setExpectedVersion(current.getVersion()).build()))
                .assertCode(Status.Code.ABORTED);

        assertThat(count("study_groups")).isEqualTo(groupsBefore);
        assertThat(get(1)).isEqualTo(latest);
    }

    @Test
    void deletingAnUnknownGroupIsNotFound() {
        GrpcFailure.of(() -> api().deleteGroup(DeleteGroupRequest.newBuilder().setId(999_999).build()))
                .assertCode(Status.Code.NOT_FOUND)
                .assertResource("group", "999999");
    }

    @Test
    void joiningADeletedGroupIsNotFound() {
        api().deleteGroup(DeleteGroupRequest.newBuilder().setId(1).build());
        GrpcFailure.of(() -> api().joinGroup(JoinGroupRequest.newBuilder().setGroupId(1).setUserId(2).build()))
                .assertCode(Status.Code.NOT_FOUND);
    }

    private Group get(long id) {
        return api().getGroup(GetGroupRequest.newBuilder().setId(id).build());
    }

    static UpdateGroupRequest update(long id, long expectedVersion, Group values, String... paths) {
        return UpdateGroupRequest.newBuilder().setId(id).setGroup(values)
                .setUpdateMask(FieldMask.newBuilder().addAllPaths(List.of(paths)))
                .setExpectedVersion(expectedVersion).build();
    }
}
