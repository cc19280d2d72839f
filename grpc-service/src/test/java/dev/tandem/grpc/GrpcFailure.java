package dev.tandem.grpc;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.ResourceInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What a client sees of a failed call: the status code and message, and the google.rpc details
 * decoded from the trailers exactly as a client library would (StatusProto.fromThrowable).
 */
public record GrpcFailure(Status.Code code, String message, ErrorInfo errorInfo, List<String> badRequestFields,
                          ResourceInfo resourceInfo) {

    /** Runs the call, which must fail with a StatusRuntimeException, and decodes what came back. */
    public static GrpcFailure of(ThrowingCallable call) {
        StatusRuntimeException thrown = catchThrowableOfType(StatusRuntimeException.class, call);
        assertThat(thrown).as("the call should have failed with a gRPC status").isNotNull();
        com.google.rpc.Status status = StatusProto.fromThrowable(thrown);
        assertThat(status).as("google.rpc.Status in the trailers of " + thrown.getStatus()).isNotNull();
        assertThat(status.getCode()).isEqualTo(thrown.getStatus().getCode().value());
        ErrorInfo errorInfo = null;
        List<String> fields = List.of();
        ResourceInfo resourceInfo = null;
        try {
            for (Any detail : status.getDetailsList()) {
                if (detail.is(ErrorInfo.class)) {
                    errorInfo = detail.unpack(ErrorInfo.class);
                } else if (detail.is(BadRequest.class)) {
                    fields = detail.unpack(BadRequest.class).getFieldViolationsList().stream()
                            .map(BadRequest.FieldViolation::getField).toList();
                } else if (detail.is(ResourceInfo.class)) {
                    resourceInfo = detail.unpack(ResourceInfo.class);
                }
            }
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("undecodable status detail", e);
        }
        return new GrpcFailure(thrown.getStatus().getCode(), status.getMessage(), errorInfo, fields, resourceInfo);
    }

    /**
     * INVALID_ARGUMENT naming exactly these fields (in any order). A field may carry several
     * violations (blank and too short, say), so the fields are compared as a set.
     */
    public GrpcFailure assertInvalid(String... fields) {
        assertCode(Status.Code.INVALID_ARGUMENT);
        assertThat(Set.copyOf(badRequestFields)).as("fields of the BadRequest violations %s", badRequestFields)
                .containsExactlyInAnyOrder(fields);
        return this;
    }

    /** The code, and an ErrorInfo whose reason is the code's name in the tandem.dev domain. */
    public GrpcFailure assertCode(Status.Code expected) {
        assertThat(code).as("status code (message: %s)", message).isEqualTo(expected);
        assertThat(errorInfo).as("ErrorInfo detail").isNotNull();
        assertThat(errorInfo.getReason()).isEqualTo(expected.name());
        assertThat(errorInfo.getDomain()).isEqualTo("tandem.dev");
        return this;
    }

    public GrpcFailure assertResource(String type, String name) {
        assertThat(resourceInfo).as("ResourceInfo detail").isNotNull();
        assertThat(resourceInfo.getResourceType()).isEqualTo(type);
        assertThat(resourceInfo.getResourceName()).isEqualTo(name);
        return this;
    }
}
