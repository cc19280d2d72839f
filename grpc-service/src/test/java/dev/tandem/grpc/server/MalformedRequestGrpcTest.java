package dev.tandem.grpc.server;

import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.RawHttp2Call;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Compressor;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Request bytes that are not the message the method expects, as a broken or hostile client sends
 * them. They must be the client's INVALID_ARGUMENT, and they must change nothing.
 */
class MalformedRequestGrpcTest extends GrpcIntegrationTest {

    @Test
    void bytesThatDoNotParseAreInvalidArgumentOnEveryTandemService() {
        for (MethodDescriptor<?, ?> method : List.of(StudyGroupServiceGrpc.getGetGroupMethod(),
                HelloServiceGrpc.getHelloMethod())) {
            // 0xff 0xff ...: a field tag whose varint never ends.
            GrpcFailure failure = GrpcFailure.of(() -> call(method, new byte[]{(byte) 0xff, (byte) 0xff, (byte) 0xff}));
            failure.assertCode(Status.Code.INVALID_ARGUMENT);
            assertThat(failure.message()).contains(method.getFullMethodName());
        }
    }

    @Test
    void aStringThatIsNotUtf8IsInvalidArgumentAndCreatesNothing() {
        long before = count("users");
        // CreateUserRequest.name (field 1, length-delimited) holding 0xc3 0x28, which is not UTF-8.
        byte[] request = {0x0a, 0x02, (byte) 0xc3, 0x28, 0x12, 0x0e,
                'a', 'd', 'a', '@', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o'};

        GrpcFailure.of(() -> call(StudyGroupServiceGrpc.getCreateUserMethod(), request))
                .assertCode(Status.Code.INVALID_ARGUMENT);
        assertThat(count("users")).isEqualTo(before);
    }

    @Test
    void wellFormedRawBytesStillWork() throws Exception {
        // The guard must not get in the way of a valid request sent the same way.
        byte[] response = call(StudyGroupServiceGrpc.getGetGroupMethod(),
                GetGroupRequest.newBuilder().setId(1).build().toByteArray());
        assertThat(Group.parseFrom(response).getId()).isEqualTo(1);
    }

    /**
     * A unary call carries one request message: none, or two, is the client's mistake. grpc-java's
     * unary handler closed such a call itself with INTERNAL ("Half-closed without a request", "Too
     * many requests"), blaming the server (failed before: INTERNAL both times).
     */
    @Test
    void aUnaryCallWithoutItsOneRequestMessageIsInvalidArgument() throws Exception {
        byte[] one = GetGroupRequest.newBuilder().setId(1).build().toByteArray();
        for (List<byte[]> messages : List.of(List.<byte[]>of(), List.of(one, one))) {
            Status status = rawCall(StudyGroupServiceGrpc.getGetGroupMethod(), messages);
            assertThat(status.getCode()).as("%d messages: %s", messages.size(), status).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(status.getDescription()).contains("one request message");
        }
        assertThat(Group.parseFrom(call(StudyGroupServiceGrpc.getGetGroupMethod(), one)).getId()).isEqualTo(1);
    }

    /**
     * A gzipped request that unzips past the inbound limit (64 KB) is over the limit, as the same
     * request sent uncompressed is: RESOURCE_EXHAUSTED. grpc-java's size check fails inside the
     * parse, which the malformed-bytes guard took for bytes that do not parse (failed before:
     * INVALID_ARGUMENT).
     */
    @Test
    void aCompressedRequestThatUnzipsPastTheLimitIsResourceExhaustedAsUncompressed() {
        GetLeaderboardRequest large = GetLeaderboardRequest.newBuilder().setSubject("a".repeat(70_000)).build();
        for (String compression : List.of("gzip", "identity")) {
            // (uncompressed, grpc-java's deframer refuses it itself, without the service's details)
            StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                    () -> StudyGroupServiceGrpc.newBlockingStub(channel).withCompression(compression)
                            .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS).getLeaderboard(large));
            assertThat(refused.getStatus().getCode()).as("%s: %s", compression, refused.getStatus())
                    .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        }
    }

    /**
     * A request labelled gzip whose bytes are not gzip is bytes that do not parse: INVALID_ARGUMENT.
     * grpc-java's gzip decompressor read the header while deframing and failed there (failed before:
     * UNKNOWN with no message). The client here labels its plain bytes gzip.
     */
    @Test
    void bytesLabelledGzipThatAreNotGzipAreInvalidArgument() throws Exception {
        Compressor lying = new Compressor() {
            @Override
            public String getMessageEncoding() {
                return "gzip";
            }

            @Override
            public OutputStream compress(OutputStream os) {
                return os;
            }
        };
        CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
        registry.register(lying);
        ManagedChannel lyingChannel = ManagedChannelBuilder.forTarget(channel.authority()).usePlaintext()
                .compressorRegistry(registry).build();
        try {
            GrpcFailure.of(() -> StudyGroupServiceGrpc.newBlockingStub(lyingChannel).withCompression("gzip")
                            .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                            .getGroup(GetGroupRequest.newBuilder().setId(1).build()))
                    .assertCode(Status.Code.INVALID_ARGUMENT);
        } finally {
            lyingChannel.shutdownNow();
        }
        // and real gzip is read as before
        assertThat(StudyGroupServiceGrpc.newBlockingStub(channel).withCompression("gzip")
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
    }

    /**
     * A request compressed with an encoding the server does not have is UNIMPLEMENTED naming it, as
     * gRPC's compression spec asks (grpc-java answers it before any interceptor; the spec's
     * grpc-accept-encoding on that answer it does not send). The client here is a raw peer: grpc-java
     * and grpc-go clients send only the encodings they link.
     */
    @Test
    void aRequestEncodingTheServerDoesNotHaveIsUnimplemented() throws Exception {
        RawHttp2Call.Trailers answer = RawHttp2Call.unary(grpcPort(), "/tandem.v1.StudyGroupService/GetGroup",
                java.util.Map.of("grpc-encoding", "snappy"), GetGroupRequest.newBuilder().setId(1).build().toByteArray());

        assertThat(answer.grpcStatus()).as("grpc-status of %s", answer.headers()).isEqualTo(Status.Code.UNIMPLEMENTED.value());
        assertThat(String.valueOf(answer.headers().get("grpc-message"))).contains("snappy");
    }

    /**
     * Out of the service's reach, as the README says: grpc-java's deframer reads a message frame's
     * flags before any interceptor or decompressor sees the call, and answers a frame marked
     * compressed on a call with no {@code grpc-encoding}, or with reserved bits set, INTERNAL (no
     * gRPC client sends either). Pinned so that the README changes when grpc-java's answer does.
     */
    @Test
    void aMessageFrameNoClientSendsIsAnsweredByGrpcJavaItself() throws Exception {
        byte[] message = GetGroupRequest.newBuilder().setId(1).build().toByteArray();
        for (int flags : new int[] {1, 2}) {
            RawHttp2Call.Trailers answer = RawHttp2Call.unary(grpcPort(), "/tandem.v1.StudyGroupService/GetGroup",
                    java.util.Map.of(), flags, message);
            assertThat(answer.grpcStatus()).as("flags %d: grpc-status of %s", flags, answer.headers())
                    .isEqualTo(Status.Code.INTERNAL.value());
        }
    }

    /** How a call that sends {@code messages} as they are, then half-closes, ends. */
    private Status rawCall(MethodDescriptor<?, ?> method, List<byte[]> messages) throws Exception {
        MethodDescriptor<byte[], byte[]> raw = method.toBuilder(RAW_BYTES, RAW_BYTES).build();
        ClientCall<byte[], byte[]> call = writerChannel().newCall(raw,
                CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS));
        CompletableFuture<Status> closed = new CompletableFuture<>();
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
            }
        }, new Metadata());
        call.request(2);
        messages.forEach(call::sendMessage);
        call.halfClose();
        return closed.get(deadlineSeconds() + 5, TimeUnit.SECONDS);
    }

    private byte[] call(MethodDescriptor<?, ?> method, byte[] request) {
        MethodDescriptor<byte[], byte[]> raw = method.toBuilder(RAW_BYTES, RAW_BYTES).build();
        return ClientCalls.blockingUnaryCall(writerChannel(), raw,
                CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS), request);
    }

    /**
     * A metadata key with a character gRPC does not allow (x!y): grpc-netty lets it through, and the
     * metadata limit, naming each key to read its value, threw: the client got UNKNOWN (found by a
     * read-only review; grpc-java and grpc-go clients refuse to send such a key, a raw peer can).
     */
    @Test
    void aMetadataKeyGrpcDoesNotAllowIsInvalidArgument() throws Exception {
        RawHttp2Call.Trailers answer = RawHttp2Call.unary(grpcPort(), "/tandem.v1.StudyGroupService/GetGroup",
                java.util.Map.of("x!y", "1"), GetGroupRequest.newBuilder().setId(1).build().toByteArray());

        assertThat(answer.grpcStatus()).as("grpc-status of %s", answer.headers()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
        assertThat(answer.has("grpc-status-details-bin")).as("BadRequest details").isTrue();
    }
}
