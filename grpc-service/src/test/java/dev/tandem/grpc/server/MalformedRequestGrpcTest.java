package dev.tandem.grpc.server;

import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

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

    private byte[] call(MethodDescriptor<?, ?> method, byte[] request) {
        MethodDescriptor<byte[], byte[]> raw = method.toBuilder(RAW_BYTES, RAW_BYTES).build();
        return ClientCalls.blockingUnaryCall(writerChannel(), raw,
                CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS), request);
    }
}
