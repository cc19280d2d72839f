package dev.tandem.grpc.group;

import com.google.protobuf.Empty;
import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.Membership;
import dev.tandem.testsupport.Concurrently;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** JoinGroup and LeaveGroup over the wire. */
class MembershipGrpcTest extends GrpcIntegrationTest {

    @Test
    void joiningAddsAMembership() {
        long group = newGroup(10);
        Membership membership = api().joinGroup(join(group, 42));

        assertThat(membership.getGroupId()).isEqualTo(group);
        assertThat(membership.getUserId()).isEqualTo(42);
        assertThat(membership.hasJoinTime()).isTrue();
        assertThat(get(group).getMemberCount()).isEqualTo(2);
        assertThat(count("group_members WHERE group_id = " + group + " AND user_id = 42")).isEqualTo(1);
    }

    @Test
    void joiningTwiceIsAlreadyExistsAndAddsNoRow() {
        long group = newGroup(10);
        api().joinGroup(join(group, 42));

        GrpcFailure.of(() -> api().joinGroup(join(group, 42)))
                .assertCode(Status.Code.ALREADY_EXISTS)
                .assertResource("membership", group + "/42");
        assertThat(count("group_members WHERE group_id = " + group)).isEqualTo(2);
    }

    @Test
    void theOwnerJoiningTheirOwnGroupIsAlreadyExists() {
        long group = newGroup(10);
        GrpcFailure.of(() -> api().joinGroup(join(group, 1))).assertCode(Status.Code.ALREADY_EXISTS);
    }

    @Test
    void joiningAFullGroupIsAFailedPreconditionAndAddsNoRow() {
        long group = newGroup(2);
        api().joinGroup(join(group, 42));

        GrpcFailure.of(() -> api().joinGroup(join(group, 43))).assertCode(Status.Code.FAILED_PRECONDITION);
        assertThat(get(group).getMemberCount()).isEqualTo(2);
    }

    @Test
    void concurrentJoinsNeverExceedTheCapacity() throws Exception {
        long group = newGroup(5);
        List<Callable<Membership>> joins = LongStream.rangeClosed(11, 30)
                .mapToObj(user -> (Callable<Membership>) () -> api().joinGroup(join(group, user)))
                .toList();

        List<Object> outcomes = Concurrently.run(joins);

        assertThat(outcomes.stream().filter(Membership.class::isInstance)).hasSize(4);
        assertThat(outcomes.stream().filter(o -> !(o instanceof Membership)))
                .hasSize(16)
                .allSatisfy(o -> assertThat(((StatusRuntimeException) o).getStatus().getCode())
                        .isEqualTo(Status.Code.FAILED_PRECONDITION));
        assertThat(count("group_members WHERE group_id = " + group)).isEqualTo(5);
    }

    @Test
    void joiningAnUnknownGroupOrAsAnUnknownUserIsNotFound() {
        long group = newGroup(10);
        GrpcFailure.of(() -> api().joinGroup(join(999_999, 42)))
                .assertCode(Status.Code.NOT_FOUND).assertResource("group", "999999");
        GrpcFailure.of(() -> api().joinGroup(join(group, 999_999)))
                .assertCode(Status.Code.NOT_FOUND).assertResource("user", "999999");
        assertThat(get(group).getMemberCount()).isEqualTo(1);
    }

    @Test
    void leavingRemovesTheMembership() {
        long group = newGroup(10);
        api().joinGroup(join(group, 42));

        assertThat(api().leaveGroup(leave(group, 42))).isEqualTo(Empty.getDefaultInstance());
        assertThat(get(group).getMemberCount()).isEqualTo(1);
    }

    @Test
    void leavingAGroupOneIsNotInIsNotFound() {
        long group = newGroup(10);
        GrpcFailure.of(() -> api().leaveGroup(leave(group, 42)))
                .assertCode(Status.Code.NOT_FOUND).assertResource("membership", group + "/42");
        GrpcFailure.of(() -> api().leaveGroup(leave(999_999, 42)))
                .assertCode(Status.Code.NOT_FOUND).assertResource("group", "999999");
    }

    @Test
    void theOwnerCannotLeave() {
        long group = newGroup(10);
        GrpcFailure.of(() -> api().leaveGroup(leave(group, 1))).assertCode(Status.Code.FAILED_PRECONDITION);
        assertThat(get(group).getMemberCount()).isEqualTo(1);
    }

    /** A fresh group owned by user 1, so the member counts below are known exactly. */
    private long newGroup(int capacity) {
        return api().createGroup(CreateGroupRequest.newBuilder().setName("Membership test").setSubject("history")
                .setCapacity(capacity).setOwnerId(1).build()).getId();
    }

    private Group get(long id) {
        return api().getGroup(GetGroupRequest.newBuilder().setId(id).build());
    }

    private static JoinGroupRequest join(long group, long user) {
        return JoinGroupRequest.newBuilder().setGroupId(group).setUserId(user).build();
    }

    private static LeaveGroupRequest leave(long group, long user) {
        return LeaveGroupRequest.newBuilder().setGroupId(group).setUserId(user).build();
    }
}
