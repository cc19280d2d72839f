package dev.tandem.grpc.auth;

import dev.tandem.testsupport.SeededRows;
import com.google.protobuf.FieldMask;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import dev.tandem.auth.BadTokens;
import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.error.GrpcErrors;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.RateGroupRequest;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.proto.v1.UpdateGroupRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes need a writer's bearer token in the {@code authorization} metadata; reads, health and
 * reflection (ServerGrpcTest asks it without a token) do not. Every write RPC is called with no token, with each kind of bad token and with
 * a valid token that lacks the write scope: each fails with the status GrpcErrors gives a
 * DomainException, and not a row changes in MariaDB. The management port's cache flush needs the
 * token too.
 */
class WriteAuthGrpcTest extends GrpcIntegrationTest {

    @LocalServerPort int managementPort;

    /** A request per write RPC that would succeed with a token. */
    static final Map<MethodDescriptor<?, ?>, Message> WRITES = writes();

    private static Map<MethodDescriptor<?, ?>, Message> writes() {
        Map<MethodDescriptor<?, ?>, Message> writes = new LinkedHashMap<>();
        writes.put(StudyGroupServiceGrpc.getCreateUserMethod(),
                CreateUserRequest.newBuilder().setName("Ada").setEmail("ada-auth@example.test").build());
        writes.put(StudyGroupServiceGrpc.getCreateGroupMethod(), CreateGroupRequest.newBuilder()
                .setName("Number theory").setSubject("algorithms").setCapacity(10).setOwnerId(1).build());
        writes.put(StudyGroupServiceGrpc.getUpdateGroupMethod(), UpdateGroupRequest.newBuilder().setId(1)
                .setGroup(Group.newBuilder().setName("Renamed")).setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                .setExpectedVersion(1).build());
        writes.put(StudyGroupServiceGrpc.getDeleteGroupMethod(), DeleteGroupRequest.newBuilder().setId(1).build());
        writes.put(StudyGroupServiceGrpc.getJoinGroupMethod(), JoinGroupRequest.newBuilder().setGroupId(1).setUserId(100).build());
        writes.put(StudyGroupServiceGrpc.getLeaveGroupMethod(), LeaveGroupRequest.newBuilder().setGroupId(1).setUserId(1).build());
        writes.put(StudyGroupServiceGrpc.getRateGroupMethod(),
                RateGroupRequest.newBuilder().setGroupId(1).setUserId(100).setStars(5).build());
        writes.put(StudyGroupServiceGrpc.getScheduleSessionMethod(), ScheduleSessionRequest.newBuilder().setGroupId(1)
                .setTopic("Cuts").setStartTime(Timestamp.newBuilder().setSeconds(1_925_000_000L)).setDurationMinutes(60)
                .build());
        return writes;
    }

    @Test
    void everyMethodThatIsNotADeclaredReadIsAWriteHere() {
        // Deny by default: a new RPC is refused without a token until it is declared a read; this
        // test then wants a request for it above.
        List<String> writes = StudyGroupServiceGrpc.getServiceDescriptor().getMethods().stream()
                .filter(WriteAuthInterceptor::isWrite).map(MethodDescriptor::getFullMethodName).sorted().toList();
        assertThat(writes).containsExactlyInAnyOrderElementsOf(
                WRITES.keySet().stream().map(MethodDescriptor::getFullMethodName).toList());
        assertThat(WriteAuthInterceptor.READS).hasSize(6);
    }

    @Test
    void aMethodOfAnyOtherTandemServiceIsAWriteUntilDeclaredARead() {
        // Deny by default reaches past StudyGroupService: a service added to tandem.v1 is protected too.
        MethodDescriptor<byte[], byte[]> newService = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName("tandem.v1.NewService", "Change"))
                .setRequestMarshaller(RAW_BYTES).setResponseMarshaller(RAW_BYTES).build();
        assertThat(WriteAuthInterceptor.isWrite(newService)).isTrue();
        assertThat(WriteAuthInterceptor.isWrite(HelloServiceGrpc.getHelloMethod())).isFalse();
        assertThat(WriteAuthInterceptor.isWrite(HealthGrpc.getCheckMethod())).isFalse();
    }

    @Test
    void everyWriteWithoutATokenIsUnauthenticatedAndChangesNothing() {
        WRITES.forEach((method, request) -> expectRefused(method, request, null, Status.Code.UNAUTHENTICATED));
    }

    @Test
    void everyWriteWithABadTokenIsUnauthenticatedAndChangesNothing() {
        WRITES.forEach((method, request) -> BadTokens.unauthenticated().forEach((name, authorization) ->
                expectRefused(method, request, authorization, Status.Code.UNAUTHENTICATED)));
    }

    @Test
    void everyWriteWithoutTheWriteScopeIsPermissionDeniedAndChangesNothing() {
        WRITES.forEach((method, request) ->
                expectRefused(method, request, BadTokens.withoutWriteScope(), Status.Code.PERMISSION_DENIED));
    }

    @Test
    void everyReadAndHealthAnswerWithoutAToken() {
        assertThat(anonymousApi().getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
        assertThat(anonymousApi().listGroups(ListGroupsRequest.newBuilder().setPageSize(2).build()).getGroupsCount()).isEqualTo(2);
        assertThat(anonymousApi().getLeaderboard(GetLeaderboardRequest.newBuilder().setLimit(3).build()).getGroupsCount())
                .isPositive();
        assertThat(anonymousApi().getUser(GetUserRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
        assertThat(HelloServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .hello(HelloRequest.getDefaultInstance()).getMessage()).isEqualTo("hello");
        assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    @Test
    void aWriteTokenWrites() {
        long users = count("users");
        call(StudyGroupServiceGrpc.getCreateUserMethod(), WRITES.get(StudyGroupServiceGrpc.getCreateUserMethod()),
                "Bearer " + WRITER);
        assertThat(count("users")).isEqualTo(users + 1);
    }

    @Test
    void theManagementPortsCacheFlushNeedsAWriteToken() throws Exception {
        HttpResponse<String> refused = deleteCache(null);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"tandem\"");
        assertThat(refused.body()).contains("\"code\":\"UNAUTHENTICATED\"").contains("\"title\":\"Unauthorized\"");

        HttpResponse<String> denied = deleteCache(BadTokens.withoutWriteScope());
        assertThat(denied.statusCode()).isEqualTo(403);
        assertThat(denied.body()).contains("\"code\":\"PERMISSION_DENIED\"");
        for (String authorization : BadTokens.unauthenticated().values()) {
            assertThat(deleteCache(authorization).statusCode()).isEqualTo(401);
        }
        assertThat(deleteCache("Bearer " + WRITER).statusCode()).isEqualTo(200);
    }

    /** Two authorization values: refused in either order (grpc-java's Metadata.get would check only the last). */
    @Test
    void aWriteWithTwoAuthorizationValuesIsUnauthenticatedInEitherOrder() {
        MethodDescriptor<?, ?> method = StudyGroupServiceGrpc.getCreateUserMethod();
        for (List<String> values : List.of(List.of("Bearer " + WRITER, "Bearer junk"), List.of("Bearer junk", "Bearer " + WRITER))) {
            Map<String, List<Map<String, Object>>> before = SeededRows.database(jdbc);
            io.grpc.Metadata headers = new io.grpc.Metadata();
            values.forEach(v -> headers.put(WriteAuthInterceptor.AUTHORIZATION, v));
            Channel target = ClientInterceptors.intercept(channel, io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers));
            @SuppressWarnings("unchecked")
            GrpcFailure failure = GrpcFailure.of(() -> ClientCalls.blockingUnaryCall(target,
                    (MethodDescriptor<Message, Object>) method, CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS),
                    WRITES.get(method)));
            assertThat(failure.code()).as("%s", values).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(SeededRows.database(jdbc)).as("rows after a write with %s", values).isEqualTo(before);
        }
    }

    private void expectRefused(MethodDescriptor<?, ?> method, Message request, String authorization, Status.Code code) {
        String what = method.getBareMethodName() + " with " + (authorization == null ? "no token" : authorization);
        Map<String, List<Map<String, Object>>> before = SeededRows.database(jdbc);
        GrpcFailure failure = GrpcFailure.of(() -> call(method, request, authorization));
        assertThat(failure.code()).as(what).isEqualTo(code);
        assertThat(failure.errorInfo()).as(what).isNotNull();
        assertThat(failure.errorInfo().getReason()).as(what).isEqualTo(code.name());
        assertThat(failure.errorInfo().getDomain()).as(what).isEqualTo(GrpcErrors.ERROR_DOMAIN);
        assertThat(failure.message()).as(what).isNotBlank();
        assertThat(SeededRows.database(jdbc)).as("rows after " + what).isEqualTo(before);
    }

    @SuppressWarnings("unchecked")
    private Object call(MethodDescriptor<?, ?> method, Message request, String authorization) {
        Channel target = channel;
        if (authorization != null) {
            target = ClientInterceptors.intercept(channel,
                    io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(authorization(authorization)));
        }
        return ClientCalls.blockingUnaryCall(target, (MethodDescriptor<Message, Object>) method,
                CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS), request);
    }

    private HttpResponse<String> deleteCache(String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/actuator/cache"))
                .timeout(Duration.ofSeconds(deadlineSeconds())).DELETE();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
