package dev.tandem.grpc.hostile;

import dev.tandem.testsupport.SeedResets;
import dev.tandem.testsupport.SeededRows;
import com.google.protobuf.Any;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import dev.tandem.auth.DevTokens;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.hostile.GrpcOperation.Rows;
import dev.tandem.grpc.hostile.HostileGrpcRequests.Expect;
import dev.tandem.grpc.hostile.HostileGrpcRequests.Hostile;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.proto.v1.StudyGroupsProto;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Hostile input on every RPC (the table is {@link HostileGrpcRequests}), sent as raw bytes on a
 * channel of the test's own. Each call must fail with the expected status — never INTERNAL or
 * UNKNOWN — leave every table exactly as it was, and leave the server SERVING and answering.
 */
class HostileInputGrpcTest extends GrpcIntegrationTest {

    @Autowired GrpcServerLifecycle server;

    /** A channel of our own that sends the dev write token: hostile requests must reach the parser. */
    private ManagedChannel ownChannel;
    private Channel authenticated;
    private Rows rows;

    @BeforeEach
    void connectAndFindTheSeededRows() {
        ownChannel = ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                // The client must not refuse what the test wants the server to refuse.
                .maxInboundMetadataSize(1024 * 1024).build();
        Metadata token = new Metadata();
        token.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + DevTokens.devWriter());
        authenticated = ClientInterceptors.intercept(ownChannel, MetadataUtils.newAttachHeadersInterceptor(token));

        SeededRows.WriteTargets targets = SeededRows.WriteTargets.find(jdbc);
        rows = new Rows(targets.group(), targets.member(), targets.outsider());
    }

    @AfterEach
    void closeOwnChannel() throws InterruptedException {
        ownChannel.shutdownNow().awaitTermination(deadlineSeconds(), TimeUnit.SECONDS);
    }

    /** The requests the hostile ones are made from succeed, so each is refused for what was broken. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(GrpcOperation.class)
    void theValidRequestOfEveryRpcSucceeds(GrpcOperation operation) {
        byte[] response = call(operation, operation.valid.apply(rows).toByteArray(), Map.of());
        assertThat(response).isNotNull();
    }

    @Test
    void everyRpcIsAttacked() {
        Set<GrpcOperation> attacked = HostileGrpcRequests.all().stream().map(Hostile::operation)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(GrpcOperation.class)));
        assertThat(attacked).containsExactlyInAnyOrder(GrpcOperation.values());
        assertThat(StudyGroupsProto.getDescriptor().findServiceByName("StudyGroupService").getMethods())
                .extracting(MethodDescriptor::getName)
                .containsExactlyInAnyOrderElementsOf(EnumSet.allOf(GrpcOperation.class).stream()
                        .map(op -> op.method.getBareMethodName()).toList());
    }

    /**
     * "Unknown enum values" cannot be sent: no request message has an enum field, at any depth.
     * Should one get one, this fails, and the hostile table must learn to send values the enum
     * does not define (proto3 keeps them as UNRECOGNIZED, which the mapping must then refuse).
     */
    @Test
    void noRequestMessageHasAnEnumFieldSoUnknownEnumValuesCannotOccur() {
        List<String> enums = new ArrayList<>();
        for (MethodDescriptor method : StudyGroupsProto.getDescriptor().findServiceByName("StudyGroupService").getMethods()) {
            Deque<Descriptor> pending = new ArrayDeque<>(List.of(method.getInputType()));
            Set<String> seen = new HashSet<>();
            while (!pending.isEmpty()) {
                Descriptor type = pending.pop();
                if (!seen.add(type.getFullName())) {
                    continue;
                }
                for (FieldDescriptor field : type.getFields()) {
                    if (field.getJavaType() == FieldDescriptor.JavaType.ENUM) {
                        enums.add(method.getName() + ": " + field.getFullName());
                    } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                        pending.push(field.getMessageType());
                    }
                }
            }
        }
        assertThat(enums).as("enum fields reachable from a request").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.tandem.grpc.hostile.HostileGrpcRequests#all")
    void hostileCallFailsWithASpecificStatusAndChangesNothing(Hostile hostile) {
        List<String> before = SeededRows.checksums(jdbc);

        StatusRuntimeException failure = catchThrowableOfType(StatusRuntimeException.class,
                () -> call(hostile.operation(), hostile.request().apply(rows), hostile.metadata()));

        assertThat(failure).as("%s should have failed", hostile).isNotNull();
        Status status = failure.getStatus();
        Expect expect = hostile.expect();
        assertThat(status.getCode()).as("status of %s (%s)", hostile, status.getDescription())
                .isNotIn(Status.Code.INTERNAL, Status.Code.UNKNOWN)
                .isEqualTo(expect.code());
        if (expect.messageContains() != null) {
            assertThat(status.getDescription()).as("message of %s", hostile).contains(expect.messageContains());
        }
        if (!expect.byTransport()) {
            // The service's own answer: google.rpc.Status with ErrorInfo and, for fields, BadRequest.
            com.google.rpc.Status details = StatusProto.fromThrowable(failure);
            assertThat(details).as("google.rpc.Status of %s", hostile).isNotNull();
            List<String> fields = new ArrayList<>();
            ErrorInfo errorInfo = null;
            try {
                for (Any detail : details.getDetailsList()) {
                    if (detail.is(ErrorInfo.class)) {
                        errorInfo = detail.unpack(ErrorInfo.class);
                    } else if (detail.is(BadRequest.class)) {
                        detail.unpack(BadRequest.class).getFieldViolationsList().forEach(v -> fields.add(v.getField()));
                    }
                }
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new AssertionError(e);
            }
            assertThat(errorInfo).as("ErrorInfo of %s", hostile).isNotNull();
            assertThat(errorInfo.getReason()).isEqualTo(expect.code().name());
            if (expect.fields() != null) {
                assertThat(Set.copyOf(fields)).as("BadRequest fields of %s (%s)", hostile, status.getDescription())
                        .containsExactlyInAnyOrderElementsOf(Set.copyOf(expect.fields()));
            }
        }

        assertThat(SeededRows.checksums(jdbc)).as("every table unchanged after %s", hostile).isEqualTo(before);
        assertStillServing();
        // It changed nothing, so the next case needs no reset: a reset was half of each case's time.
        SeedResets.keptBy(getClass());
    }

    private byte[] call(GrpcOperation operation, byte[] request, Map<String, String> metadata) {
        Channel channel = authenticated;
        if (!metadata.isEmpty()) {
            Metadata extra = new Metadata();
            metadata.forEach((k, v) -> extra.put(Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER), v));
            channel = ClientInterceptors.intercept(authenticated, MetadataUtils.newAttachHeadersInterceptor(extra));
        }
        io.grpc.MethodDescriptor<byte[], byte[]> raw = operation.method.toBuilder(RAW_BYTES, RAW_BYTES).build();
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS);
        if (raw.getType() == io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING) {
            // A stream (WatchGroup) answers with its first message, or fails before it; then it is cancelled.
            io.grpc.ClientCall<byte[], byte[]> streaming = channel.newCall(raw, options);
            try {
                return ClientCalls.blockingServerStreamingCall(streaming, request).next();
            } finally {
                streaming.cancel("first message received", null);
            }
        }
        return ClientCalls.blockingUnaryCall(channel, raw, options, request);
    }

    private void assertStillServing() {
        HealthCheckResponse health = HealthGrpc.newBlockingStub(ownChannel)
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("").build());
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        assertThat(StudyGroupServiceGrpc.newBlockingStub(ownChannel).withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
    }
}
