package dev.tandem.grpc.group;

import dev.tandem.grpc.ratelimit.RateLimitInterceptor;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.ratelimit.ClientRateLimiter;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

/**
 * Names the client of a WatchGroup call, as the rate limit names it, for the watches' per-client
 * cap: the service method sees only the request, while the client's name needs the call's metadata
 * (its token) and its peer address, so it travels to {@link WatchGroupStreams} on the call's Context.
 * Every other call passes untouched (naming a client may verify a token).
 */
@Component
@GlobalServerInterceptor
// After the write auth (+10), before the call deadline (+100): nothing between them reads the client.
@Order(Ordered.HIGHEST_PRECEDENCE + 20)
class WatchClientInterceptor implements ServerInterceptor {

    /** The client of the current WatchGroup call (ClientRateLimiter#clientOf). */
    static final Context.Key<String> CLIENT = Context.key("tandem-watch-client");

    private final ClientRateLimiter clients;

    WatchClientInterceptor(ClientRateLimiter clients) {
        this.clients = clients;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        if (!call.getMethodDescriptor().getFullMethodName()
                .equals(StudyGroupServiceGrpc.getWatchGroupMethod().getFullMethodName())) {
            return next.startCall(call, headers);
        }
        Context named = Context.current().withValue(CLIENT, RateLimitInterceptor.clientOf(clients, call, headers));
        return Contexts.interceptCall(named, call, headers, next);
    }
}
