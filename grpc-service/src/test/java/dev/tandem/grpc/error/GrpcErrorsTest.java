package dev.tandem.grpc.error;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.ResourceInfo;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.error.FieldViolation;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.protobuf.StatusProto;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The translation table on its own, for the cases no client request can reach (an unexpected
 * exception, every ErrorCode). The integration tests cover it end to end through the server.
 */
class GrpcErrorsTest {

    private final GrpcErrors errors = new GrpcErrors();

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void everyDomainCodeKeepsItsGrpcCodeAndNamesItselfInErrorInfo(ErrorCode code) throws Exception {
        StatusException status = errors.handleException(new DomainException(code, "what happened"));

        assertThat(status.getStatus().getCode().value()).isEqualTo(code.rpcCode().getNumber());
        com.google.rpc.Status details = StatusProto.fromThrowable(status);
        assertThat(details.getMessage()).isEqualTo("what happened");
        assertThat(details.getDetailsCount()).isEqualTo(1);
        ErrorInfo info = details.getDetails(0).unpack(ErrorInfo.class);
        assertThat(info.getReason()).isEqualTo(code.name());
        assertThat(info.getDomain()).isEqualTo("tandem.dev");
    }

    @Test
    void violationsBecomeBadRequestFieldViolationsInOrder() throws Exception {
        DomainException invalid = DomainException.invalid(List.of(
                new FieldViolation("group.capacity", "must be at least 2"),
                new FieldViolation("group.name", "must not be blank")));

        com.google.rpc.Status details = StatusProto.fromThrowable(errors.handleException(invalid));

        assertThat(details.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
        BadRequest badRequest = unpack(details, BadRequest.class);
        assertThat(badRequest.getFieldViolationsList())
                .extracting(BadRequest.FieldViolation::getField, BadRequest.FieldViolation::getDescription)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("group.capacity", "must be at least 2"),
                        org.assertj.core.groups.Tuple.tuple("group.name", "must not be blank"));
    }

    @Test
    void namedResourceBecomesResourceInfo() throws Exception {
        com.google.rpc.Status details = StatusProto.fromThrowable(
                errors.handleException(DomainException.notFound("group", 42)));

        assertThat(details.getCode()).isEqualTo(Status.Code.NOT_FOUND.value());
        ResourceInfo resource = unpack(details, ResourceInfo.class);
        assertThat(resource.getResourceType()).isEqualTo("group");
        assertThat(resource.getResourceName()).isEqualTo("42");
    }

    @Test
    void unexpectedExceptionIsInternalWithoutLeakingItsMessage() throws Exception {
        StatusException status = errors.handleException(new IllegalStateException("password=hunter2 at db-7"));

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
        com.google.rpc.Status details = StatusProto.fromThrowable(status);
        assertThat(details.getMessage()).isEqualTo(GrpcErrors.INTERNAL_MESSAGE).doesNotContain("hunter2");
        assertThat(unpack(details, ErrorInfo.class).getReason()).isEqualTo("INTERNAL");
        assertThat(status.getStatus().getCause()).isNull();
    }

    @Test
    void aStatusRaisedDeliberatelyPassesThroughUnchanged() {
        StatusException status = errors.handleException(
                Status.RESOURCE_EXHAUSTED.withDescription("slow down").asRuntimeException());

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(status.getStatus().getDescription()).isEqualTo("slow down");
    }

    private static <T extends com.google.protobuf.Message> T unpack(com.google.rpc.Status status, Class<T> type)
            throws InvalidProtocolBufferException {
        for (var detail : status.getDetailsList()) {
            if (detail.is(type)) {
                return detail.unpack(type);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + status);
    }
}
