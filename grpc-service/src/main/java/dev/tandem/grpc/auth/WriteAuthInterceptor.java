package dev.tandem.grpc.auth;

import dev.tandem.auth.WriteAccess;
import dev.tandem.error.DomainException;
import dev.tandem.grpc.error.GrpcErrors;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Writes over gRPC need a writer's bearer token (metadata {@code authorization: Bearer <JWT>}),
 * checked by the same {@link WriteAccess} as REST. Every method of a tandem.v1 service is a write
 * unless listed in {@link #READS}: a new RPC, or a new service of the API, is protected until it is
 * declared a read. Other services (health, reflection) stay public.
 *
 * <p>A refused call is closed here, before its request is delivered to the service, with the status
 * {@link GrpcErrors} gives every DomainException (ErrorInfo reason UNAUTHENTICATED or
 * PERMISSION_DENIED); so nothing runs and nothing is written.
 */
@Component
@GlobalServerInterceptor
// Right after Spring gRPC's exception interceptor (HIGHEST_PRECEDENCE), before anything that
// observes or handles the call.
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
public class WriteAuthInterceptor implements ServerInterceptor {

    public static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /** The API's services are those of this proto package. */
    private static final String API_PACKAGE = "tandem.v1.";

    /** The read RPCs, public like REST's GETs; every other method of the API is a write. */
    public static final Set<String> READS = Stream.of(
                    StudyGroupServiceGrpc.getGetGroupMethod(),
                    StudyGroupServiceGrpc.getListGroupsMethod(),
                    StudyGroupServiceGrpc.getGetLeaderboardMethod(),
                    StudyGroupServiceGrpc.getGetUserMethod(),
                    StudyGroupServiceGrpc.getWatchGroupMethod(),
                    HelloServiceGrpc.getHelloMethod())
            .map(MethodDescriptor::getFullMethodName)
            .collect(Collectors.toUnmodifiableSet());

    private final WriteAccess writeAccess;

    public WriteAuthInterceptor(WriteAccess writeAccess) {
        this.writeAccess = writeAccess;
    }

    /** A method of the API (a tandem.v1 service), as opposed to health, reflection and the like. */
    public static boolean isApi(MethodDescriptor<?, ?> method) {
        return method.getFullMethodName().startsWith(API_PACKAGE);
    }

    public static boolean isWrite(MethodDescriptor<?, ?> method) {
        return isApi(method) && !READS.contains(method.getFullMethodName());
    }

    /** Every authorization value of {@code headers}, in order (none: an empty list). */
    public static List<String> authorizations(Metadata headers) {
        Iterable<String> all = headers.getAll(AUTHORIZATION);
        if (all == null) {
            return List.of();
        }
        List<String> values = new ArrayList<>(1);
        all.forEach(values::add);
        return values;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        if (writeAccess.enabled() && isWrite(call.getMethodDescriptor())) {
            try {
                writeAccess.requireWriterFrom(authorizations(headers));
            } catch (DomainException refused) {
                StatusException status = GrpcErrors.toStatusException(refused);
                call.close(status.getStatus(), status.getTrailers());
                return new ServerCall.Listener<>() {
                };
            }
        }
        return next.startCall(call, headers);
    }
}
