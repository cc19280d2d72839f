package dev.tandem.system;

import com.google.protobuf.FieldMask;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.User;

/** {@link LoadWire} over gRPC through one {@link RoundRobinGrpcChannel}. */
final class GrpcLoadWire implements LoadWire {

    private final RoundRobinGrpcChannel channel;

    GrpcLoadWire(RoundRobinGrpcChannel channel) {
        this.channel = channel;
    }

    @Override
    public String name() {
        return "gRPC";
    }

    @Override
    public Group getGroup(long id) {
        return channel.reads().getGroup(GetGroupRequest.newBuilder().setId(id).build());
    }

    @Override
    public ListGroupsResponse listGroups(String subject, int pageSize) {
        return channel.reads().listGroups(ListGroupsRequest.newBuilder().setSubject(subject).setPageSize(pageSize).build());
    }

    @Override
    public User getUser(long id) {
        return channel.reads().getUser(GetUserRequest.newBuilder().setId(id).build());
    }

    @Override
    public User createUser(String name, String email) {
        return channel.writes().createUser(CreateUserRequest.newBuilder().setName(name).setEmail(email).build());
    }

    @Override
    public Group updateGroup(long id, String name, int capacity, long expectedVersion) {
        return channel.writes().updateGroup(UpdateGroupRequest.newBuilder().setId(id)
                .setGroup(Group.newBuilder().setName(name).setCapacity(capacity))
                .setUpdateMask(FieldMask.newBuilder().addPaths("name").addPaths("capacity"))
                .setExpectedVersion(expectedVersion).build());
    }

    @Override
    public Membership joinGroup(long groupId, long userId) {
        return channel.writes().joinGroup(JoinGroupRequest.newBuilder().setGroupId(groupId).setUserId(userId).build());
    }

    @Override
    public void leaveGroup(long groupId, long userId) {
        channel.writes().leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(groupId).setUserId(userId).build());
    }
}
