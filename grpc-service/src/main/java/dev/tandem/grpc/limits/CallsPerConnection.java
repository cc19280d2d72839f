package dev.tandem.grpc.limits;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.grpc.error.GrpcErrors;
import dev.tandem.limits.LimitsProperties;
import io.grpc.Attributes;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.StatusException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.ServerBuilderCustomizer;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code tandem.limits.max-calls-per-connection} calls open at once on one connection; the
 * next is closed at once with RESOURCE_EXHAUSTED, so it holds nothing. The server also advertises
 * the bound as HTTP/2's MAX_CONCURRENT_STREAMS (GrpcServerConfiguration), which well-behaved clients
 * queue by; but Netty enforces its own setting only once the client has acknowledged it, and a
 * client that never sends the SETTINGS ACK opened 200,000 calls on one connection and ran the
 * service out of heap. So the count is kept here, per connection, whatever the client acknowledged
 * (CallsPerConnectionGrpcTest).
 */
@Configuration(proxyBeanMethods = false)
public class CallsPerConnection {

    /** The open calls of one connection, set on its attributes when it becomes ready. */
    static final Attributes.Key<AtomicInteger> OPEN_CALLS = Attributes.Key.create("tandem-open-calls");

    /** Gives every connection its counter (the TLS twin applies the same customizers). */
    @Bean
    <T extends ServerBuilder<T>> ServerBuilderCustomizer<T> openCallsPerConnection() {
        return builder -> builder.addTransportFilter(new ServerTransportFilter() {
            @Override
            public Attributes transportReady(Attributes attributes) {
                return attributes.toBuilder().set(OPEN_CALLS, new AtomicInteger()).build();
            }
        });
    }

    @Bean
    Limit callsPerConnectionLimit(LimitsProperties limits) {
        return new Limit(limits.maxCallsPerConnection());
    }

    /** Right after the metadata limit, before anything that costs more (a token check, the rate limit). */
    @GlobalServerInterceptor
    @Order(Ordered.HIGHEST_PRECEDENCE + 1)
    public static class Limit implements ServerInterceptor {

        private final int max;

        Limit(int max) {
            this.max = max;
        }

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                          ServerCallHandler<Q, R> next) {
            AtomicInteger open = call.getAttributes().get(OPEN_CALLS);
            if (open == null) {
                return next.startCall(call, headers); // in-process: no connection to bound
            }
            if (open.incrementAndGet() > max) {
                open.decrementAndGet();
                StatusException refused = GrpcErrors.toStatusException(new DomainException(ErrorCode.RESOURCE_EXHAUSTED,
                        "this connection has " + max + " calls open already (tandem.limits.max-calls-per-connection)"));
                call.close(refused.getStatus(), refused.getTrailers() == null ? new Metadata() : refused.getTrailers());
                return new ServerCall.Listener<>() {
                };
            }
            AtomicBoolean released = new AtomicBoolean();
            Runnable release = () -> {
                if (released.compareAndSet(false, true)) {
                    open.decrementAndGet();
                }
            };
            ServerCall<Q, R> counted = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                @Override
                public void close(Status status, Metadata trailers) {
                    try {
                        super.close(status, trailers);
                    } finally {
                        release.run();
                    }
                }
            };
            ServerCall.Listener<Q> listener;
            try {
                listener = next.startCall(counted, headers);
            } catch (RuntimeException e) {
                release.run();
                throw e;
            }
            // A call ends by close (above), or by the client's cancel or reset, which only the listener hears.
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
                @Override
                public void onComplete() {
                    try {
                        super.onComplete();
                    } finally {
                        release.run();
                    }
                }

                @Override
                public void onCancel() {
                    try {
                        super.onCancel();
                    } finally {
                        release.run();
                    }
                }
            };
        }
    }
}
