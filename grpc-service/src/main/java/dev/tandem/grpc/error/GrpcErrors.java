package dev.tandem.grpc.error;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.ResourceInfo;
import com.google.rpc.RetryInfo;
import dev.tandem.error.DataAccessFailures;
import dev.tandem.error.DomainException;
import dev.tandem.error.FieldViolation;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.exception.GrpcExceptionHandler;
import org.springframework.stereotype.Component;

/**
 * The one place where a failure becomes a gRPC status. Spring gRPC's exception-handling
 * interceptor hands every exception a handler throws here, so the service methods simply let
 * DomainException propagate.
 *
 * <p>A domain failure keeps its code from the shared {@link dev.tandem.error.ErrorCode} table (the
 * same table that gives REST its HTTP status) and travels as a {@code google.rpc.Status} with
 * details: always ErrorInfo (reason = the code's name, so clients can branch without parsing
 * messages), BadRequest when fields are invalid, ResourceInfo when a resource is named. Anything
 * else is a bug on our side: INTERNAL with a generic message, and the stack trace goes to the log,
 * not to the client.
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
public class GrpcErrors implements GrpcExceptionHandler {

    /** ErrorInfo.domain: the service that defines the reasons. */
    public static final String ERROR_DOMAIN = "tandem.dev";

    static final String INTERNAL_MESSAGE = "internal error; the server log has the details";

    private static final Logger log = LoggerFactory.getLogger(GrpcErrors.class);

    private final DataAccessFailures dataAccessFailures;

    @Autowired
    public GrpcErrors(DataAccessFailures dataAccessFailures) {
        this.dataAccessFailures = dataAccessFailures;
    }

    public GrpcErrors() {
        this(new DataAccessFailures());
    }

    @Override
    public StatusException handleException(Throwable exception) {
        return switch (exception) {
            case DomainException domain -> toStatusException(domain);
            // Already a deliberate status (e.g. raised by grpc-java itself): keep it as it is.
            case StatusException status -> status;
            case StatusRuntimeException status -> new StatusException(status.getStatus(), status.getTrailers());
            // The database being down or the deadline passing is no bug: UNAVAILABLE / DEADLINE_EXCEEDED.
            default -> dataAccessFailures.classify(exception).map(GrpcErrors::toStatusException)
                    .orElseGet(() -> unexpected(exception));
        };
    }

    /**
     * The status {@link #handleException} answers {@code exception} with, without making its details
     * or logging it: for whoever must know how a call ended before the handler has answered it
     * (admission control gives the call's permit back with it).
     */
    public io.grpc.Status.Code codeOf(Throwable exception) {
        Code code = switch (exception) {
            case DomainException domain -> domain.code().rpcCode();
            case StatusException status -> Code.forNumber(status.getStatus().getCode().value());
            case StatusRuntimeException status -> Code.forNumber(status.getStatus().getCode().value());
            default -> dataAccessFailures.classify(exception).map(d -> d.code().rpcCode()).orElse(Code.INTERNAL);
        };
        return io.grpc.Status.fromCodeValue(code.getNumber()).getCode();
    }

    public static StatusException toStatusException(DomainException e) {
        if (e.code().rpcCode() == Code.INTERNAL) {
            log.error("Domain reported an internal error", e);
        }
        com.google.rpc.Status.Builder status = com.google.rpc.Status.newBuilder()
                .setCode(e.code().rpcCode().getNumber())
                .setMessage(e.getMessage() == null ? e.code().title() : e.getMessage())
                .addDetails(Any.pack(ErrorInfo.newBuilder()
                        .setReason(e.code().name())
                        .setDomain(ERROR_DOMAIN)
                        .putAllMetadata(e.metadata())
                        .build()));
        e.retryAfter().ifPresent(delay -> status.addDetails(Any.pack(RetryInfo.newBuilder()
                .setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(delay.toSeconds())
                        .setNanos(delay.toNanosPart()))
                .build())));
        if (!e.violations().isEmpty()) {
            BadRequest.Builder badRequest = BadRequest.newBuilder();
            for (FieldViolation violation : e.violations()) {
                badRequest.addFieldViolations(BadRequest.FieldViolation.newBuilder()
                        .setField(violation.field())
                        .setDescription(violation.description()));
            }
            status.addDetails(Any.pack(badRequest.build()));
        }
        if (e.resourceType() != null) {
            status.addDetails(Any.pack(ResourceInfo.newBuilder()
                    .setResourceType(e.resourceType())
                    .setResourceName(e.resourceName() == null ? "" : e.resourceName())
                    .build()));
        }
        return StatusProto.toStatusException(status.build());
    }

    private static StatusException unexpected(Throwable exception) {
        log.error("Unexpected failure in a gRPC call", exception);
        return StatusProto.toStatusException(com.google.rpc.Status.newBuilder()
                .setCode(Code.INTERNAL_VALUE)
                .setMessage(INTERNAL_MESSAGE)
                .addDetails(Any.pack(ErrorInfo.newBuilder()
                        .setReason(Code.INTERNAL.name())
                        .setDomain(ERROR_DOMAIN)
                        .build()))
                .build());
    }
}
