package dev.tandem.system;

import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import dev.tandem.auth.DevTokens;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloResponse;
import dev.tandem.proto.v1.HelloServiceGrpc;
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
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The gRPC wire: a real HTTP/2 channel to the grpc-service process. */
final class GrpcWire implements Wire, AutoCloseable {

    private final ManagedChannel channel;
    private final StudyGroupServiceGrpc.StudyGroupServiceBlockingStub stub;
    private final HelloServiceGrpc.HelloServiceBlockingStub hello;

    GrpcWire(int port) {
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        // Writes need a writer's bearer token; the services run with the development secret.
        Metadata authorization = new Metadata();
        authorization.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + DevTokens.devWriter());
        this.stub = StudyGroupServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(authorization));
        this.hello = HelloServiceGrpc.newBlockingStub(channel);
    }

    @Override
    public String name() {
        return "gRPC";
    }

    private <T> T call(Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (StatusRuntimeException e) {
            com.google.rpc.Status status = StatusProto.fromThrowable(e);
            List<String> fields = new ArrayList<>();
            if (status != null) {
                for (Any detail : status.getDetailsList()) {
                    if (detail.is(BadRequest.class)) {
                        try {
                            detail.unpack(BadRequest.class).getFieldViolationsList().forEach(v -> fields.add(v.getField()));
                        } catch (InvalidProtocolBufferException bad) {
                            throw new AssertionError("undecodable BadRequest detail", bad);
                        }
                    }
                }
            }
            String code = status != null ? Code.forNumber(status.getCode()).name() : e.getStatus().getCode().name();
            throw new Failure(code, fields, e.getStatus().getDescription());
        }
    }

    @Override public Group getGroup(GetGroupRequest r) { return call(() -> stub.getGroup(r)); }
    @Override public ListGroupsResponse listGroups(ListGroupsRequest r) { return call(() -> stub.listGroups(r)); }
    @Override public Group createGroup(CreateGroupRequest r) { return call(() -> stub.createGroup(r)); }
    @Override public Group updateGroup(UpdateGroupRequest r) { return call(() -> stub.updateGroup(r)); }
    @Override public Empty deleteGroup(DeleteGroupRequest r) { return call(() -> stub.deleteGroup(r)); }
    @Override public Membership joinGroup(JoinGroupRequest r) { return call(() -> stub.joinGroup(r)); }
    @Override public Empty leaveGroup(LeaveGroupRequest r) { return call(() -> stub.leaveGroup(r)); }
    @Override public Rating rateGroup(RateGroupRequest r) { return call(() -> stub.rateGroup(r)); }
    @Override public StudySession scheduleSession(ScheduleSessionRequest r) { return call(() -> stub.scheduleSession(r)); }
    @Override public Leaderboard getLeaderboard(GetLeaderboardRequest r) { return call(() -> stub.getLeaderboard(r)); }
    @Override public User createUser(CreateUserRequest r) { return call(() -> stub.createUser(r)); }
    @Override public User getUser(GetUserRequest r) { return call(() -> stub.getUser(r)); }
    @Override public HelloResponse hello(HelloRequest r) { return call(() -> hello.hello(r)); }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
