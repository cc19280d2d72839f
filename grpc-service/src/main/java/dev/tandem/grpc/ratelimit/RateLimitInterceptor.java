package dev.tandem.grpc.ratelimit;

import dev.tandem.auth.WriteAccess;
import dev.tandem.error.DomainException;
import dev.tandem.grpc.auth.WriteAuthInterceptor;
import dev.tandem.grpc.error.GrpcErrors;
import dev.tandem.ratelimit.ClientRateLimiter;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusException;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Asks the shared {@link ClientRateLimiter} about every call of the API (the tandem.v1 services);
 * health and reflection are never limited. A refused call is closed before its request reaches
 * the service, with the status {@link GrpcErrors} gives every DomainException: RESOURCE_EXHAUSTED
 * with ErrorInfo and RetryInfo. The client's address is the connection's peer (behind nginx's
 * grpc_pass, the proxy: README, "Rate limiting").
 */
@Component
@GlobalServerInterceptor
// After the metadata limit (HIGHEST_PRECEDENCE), before the write auth (+10): a refused client
// costs no further token check.
@Order(Ordered.HIGHEST_PRECEDENCE + 5)
public class RateLimitInterceptor implements ServerInterceptor {

    private final ClientRateLimiter limiter;

    public RateLimitInterceptor(ClientRateLimiter limiter) {
        this.limiter = limiter;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        if (limiter.enabled() && WriteAuthInterceptor.isApi(call.getMethodDescriptor())) {
            try {
                limiter.admit(ClientRateLimiter.Wire.GRPC, authorization(headers), peer(call));
            } catch (DomainException refused) {
                StatusException status = GrpcErrors.toStatusException(refused);
                call.close(status.getStatus(), status.getTrailers() == null ? new Metadata() : status.getTrailers());
                return new ServerCall.Listener<>() {
                };
            }
        }
        return next.startCall(call, headers);
    }

    /**
     * The client {@code call} counts as, named as the limit names it whether or not the limit is on:
     * for what else is counted per client (the group watches' per-client cap).
     */
    public static String clientOf(ClientRateLimiter limiter, ServerCall<?, ?> call, Metadata headers) {
        return limiter.clientOf(authorization(headers), peer(call));
    }

    private static @Nullable String authorization(Metadata headers) {
        return WriteAccess.sole(WriteAuthInterceptor.authorizations(headers));
    }

    private static String peer(ServerCall<?, ?> call) {
        return peer(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
    }

    /** The peer's IP address as text; another kind of peer (in-process) by its description. */
    static String peer(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return String.valueOf(address);
    }
}
