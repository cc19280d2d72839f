package dev.tandem.system;

import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.ResourceInfo;
import com.google.rpc.RetryInfo;
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
import dev.tandem.proto.v1.WatchGroupRequest;
import dev.tandem.proto.v1.WatchGroupResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
            throw failure(e);
        }
    }

    /** The codes the API reports for what a request asks (rather than for outages). */
    private static final Set<String> API_CODES = Set.of("INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS",
            "FAILED_PRECONDITION", "ABORTED", "UNAVAILABLE", "RESOURCE_EXHAUSTED", "UNIMPLEMENTED");

    /**
     * The failure as a client library decodes it from the trailers. Every failure of API_CODES
     * carries a google.rpc.Status with a message and an ErrorInfo whose reason is the code's name
     * in the tandem.dev domain; BadRequest names the fields, ResourceInfo the resource.
     */
    private static Failure failure(StatusRuntimeException e) {
        com.google.rpc.Status status = StatusProto.fromThrowable(e);
        if (status == null) {
            return new Failure(e.getStatus().getCode().name(), List.of(), null, null, null, e.getStatus().getDescription());
        }
        String code = Code.forNumber(status.getCode()).name();
        List<String> fields = new ArrayList<>();
        ResourceInfo resource = null;
        ErrorInfo errorInfo = null;
        Duration retryAfter = null;
        try {
            for (Any detail : status.getDetailsList()) {
                if (detail.is(BadRequest.class)) {
                    for (BadRequest.FieldViolation violation : detail.unpack(BadRequest.class).getFieldViolationsList()) {
                        check(!violation.getDescription().isBlank(), "a violation of " + violation.getField() + " without description", e);
                        fields.add(violation.getField());
                    }
                } else if (detail.is(ResourceInfo.class)) {
                    resource = detail.unpack(ResourceInfo.class);
                } else if (detail.is(ErrorInfo.class)) {
                    errorInfo = detail.unpack(ErrorInfo.class);
                } else if (detail.is(RetryInfo.class)) {
                    com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
                    retryAfter = Duration.ofSeconds(delay.getSeconds(), delay.getNanos());
                }
            }
        } catch (InvalidProtocolBufferException bad) {
            throw new AssertionError("undecodable status detail", bad);
        }
        check(code.equals(e.getStatus().getCode().name()), "google.rpc.Status code " + code + " under status " + e.getStatus(), e);
        if (API_CODES.contains(code)) {
            check(!status.getMessage().isBlank(), "a status without message", e);
            check(errorInfo != null && errorInfo.getReason().equals(code) && errorInfo.getDomain().equals("tandem.dev"),
                    "ErrorInfo " + errorInfo + " for " + code, e);
        }
        return new Failure(code, fields, resource == null ? null : resource.getResourceType(),
                resource == null ? null : resource.getResourceName(), retryAfter, status.getMessage());
    }

    private static void check(boolean condition, String what, StatusRuntimeException e) {
        if (!condition) {
            throw new AssertionError("gRPC failure malformed: " + what, e);
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

    /** On the channel itself, without the writer's token: an anonymous watcher. */
    @Override
    public Watch watchGroup(WatchGroupRequest r) {
        ClientCall<WatchGroupRequest, WatchGroupResponse> call =
                channel.newCall(StudyGroupServiceGrpc.getWatchGroupMethod(), CallOptions.DEFAULT);
        Watch watch = new Watch(() -> call.cancel("the client leaves", null));
        ClientCalls.asyncServerStreamingCall(call, r, new StreamObserver<>() {
            @Override
            public void onNext(WatchGroupResponse message) {
                watch.received(message);
            }

            @Override
            public void onError(Throwable t) {
                try {
                    watch.failed(t instanceof StatusRuntimeException e ? failure(e) : t);
                } catch (AssertionError malformed) {
                    watch.failed(malformed);
                }
            }

            @Override
            public void onCompleted() {
                watch.ended();
            }
        });
        return watch;
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
