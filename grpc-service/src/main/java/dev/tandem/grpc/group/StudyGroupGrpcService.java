package dev.tandem.grpc.group;

import com.google.protobuf.Empty;
import dev.tandem.cache.PerEntry;
import dev.tandem.config.ProtoValues;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupProto;
import dev.tandem.group.GroupService;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.group.NewGroup;
import dev.tandem.group.NewRating;
import dev.tandem.group.NewSession;
import dev.tandem.grpc.server.MalformedRequests;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.RateGroupRequest;
import dev.tandem.proto.v1.Rating;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.proto.v1.StudySession;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.User;
import dev.tandem.proto.v1.WatchGroupRequest;
import dev.tandem.proto.v1.WatchGroupResponse;
import dev.tandem.user.NewUser;
import dev.tandem.user.UserProto;
import dev.tandem.user.UserService;
import dev.tandem.user.UserView;
import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import org.springframework.grpc.server.service.GrpcService;

import java.util.Set;

/**
 * tandem.v1.StudyGroupService: each RPC turns its request into a domain command, calls the shared
 * service and maps the answer. Validation, rules and transactions are the domain's; failures are
 * thrown, not passed to onError, so that {@link dev.tandem.grpc.error.GrpcErrors} turns every one
 * of them into a status in the same way.
 *
 * <p>The reads' answers are mapped to their messages once per cached read model ({@link PerEntry}):
 * a warm read hands grpc-java the message it built for the first read of that entry.
 */
@GrpcService
public class StudyGroupGrpcService implements StudyGroupServiceGrpc.AsyncService, BindableService {

    private final GroupService groups;
    private final UserService users;
    private final WatchGroupStreams watches;
    private final PerEntry<GroupView, Group> groupMessages = new PerEntry<>(GroupProto::group);
    private final PerEntry<GroupPage, ListGroupsResponse> pageMessages = new PerEntry<>(GroupProto::page);
    private final PerEntry<LeaderboardView, Leaderboard> leaderboardMessages = new PerEntry<>(GroupProto::leaderboard);
    private final PerEntry<UserView, User> userMessages = new PerEntry<>(UserProto::user);

    public StudyGroupGrpcService(GroupService groups, UserService users, WatchGroupStreams watches) {
        this.groups = groups;
        this.users = users;
        this.watches = watches;
    }

    @Override
    public void watchGroup(WatchGroupRequest request, StreamObserver<WatchGroupResponse> responses) {
        watches.start(request, responses);
    }

    @Override
    public void getGroup(GetGroupRequest request, StreamObserver<Group> responses) {
        reply(responses, groupMessages.of(groups.get(request.getId())));
    }

    @Override
    public void listGroups(ListGroupsRequest request, StreamObserver<ListGroupsResponse> responses) {
        reply(responses, pageMessages.of(
                groups.list(request.getSubject(), request.getPageSize(), request.getPageToken())));
    }

    @Override
    public void createGroup(CreateGroupRequest request, StreamObserver<Group> responses) {
        reply(responses, GroupProto.group(groups.create(new NewGroup(request.getName(), request.getSubject(),
                request.getDescription(), request.getCapacity(), request.getOwnerId()))));
    }

    @Override
    public void updateGroup(UpdateGroupRequest request, StreamObserver<Group> responses) {
        // Values outside the mask are carried along but ignored by the domain, as AIP-134 asks.
        Group values = request.getGroup();
        GroupChanges changes = new GroupChanges(request.getId(),
                new GroupFields(values.getName(), values.getSubject(), values.getDescription(), values.getCapacity()),
                Set.copyOf(request.getUpdateMask().getPathsList()),
                request.getExpectedVersion());
        reply(responses, GroupProto.group(groups.update(changes)));
    }

    @Override
    public void deleteGroup(DeleteGroupRequest request, StreamObserver<Empty> responses) {
        groups.delete(request.getId(), request.getExpectedVersion());
        reply(responses, Empty.getDefaultInstance());
    }

    @Override
    public void joinGroup(JoinGroupRequest request, StreamObserver<Membership> responses) {
        reply(responses, GroupProto.membership(groups.join(request.getGroupId(), request.getUserId())));
    }

    @Override
    public void leaveGroup(LeaveGroupRequest request, StreamObserver<Empty> responses) {
        groups.leave(request.getGroupId(), request.getUserId());
        reply(responses, Empty.getDefaultInstance());
    }

    @Override
    public void rateGroup(RateGroupRequest request, StreamObserver<Rating> responses) {
        reply(responses, GroupProto.rating(groups.rate(new NewRating(request.getGroupId(), request.getUserId(),
                request.getStars(), request.getComment()))));
    }

    @Override
    public void scheduleSession(ScheduleSessionRequest request, StreamObserver<StudySession> responses) {
        // An unset start_time becomes null, so the domain names start_time as missing.
        NewSession command = new NewSession(request.getGroupId(), request.getTopic(),
                ProtoValues.instantOrNull(request.hasStartTime(), request.getStartTime(), "start_time"),
                request.getDurationMinutes(), request.getLocation());
        reply(responses, GroupProto.session(groups.schedule(command)));
    }

    @Override
    public void getLeaderboard(GetLeaderboardRequest request, StreamObserver<Leaderboard> responses) {
        reply(responses, leaderboardMessages.of(groups.leaderboard(request.getSubject(), request.getLimit())));
    }

    @Override
    public void createUser(CreateUserRequest request, StreamObserver<User> responses) {
        reply(responses, UserProto.user(users.create(new NewUser(request.getName(), request.getEmail()))));
    }

    @Override
    public void getUser(GetUserRequest request, StreamObserver<User> responses) {
        reply(responses, userMessages.of(users.get(request.getId())));
    }

    /**
     * The generated definition with request parsing guarded, so that bytes which do not parse are
     * INVALID_ARGUMENT rather than grpc-java's UNKNOWN (see MalformedRequests). This is why the
     * class implements AsyncService itself: the generated ImplBase makes bindService final.
     */
    @Override
    public ServerServiceDefinition bindService() {
        return MalformedRequests.rejectedAsInvalidArgument(StudyGroupServiceGrpc.bindService(this));
    }

    private static <T> void reply(StreamObserver<T> responses, T message) {
        responses.onNext(message);
        responses.onCompleted();
    }
}
