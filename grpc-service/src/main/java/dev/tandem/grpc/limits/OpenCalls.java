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
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.ServerBuilderCustomizer;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds on the gRPC calls open at once: {@code tandem.limits.max-calls-per-connection} on one
 * connection and {@code tandem.limits.max-open-calls} over all of them. A call above either is
 * closed at once with RESOURCE_EXHAUSTED, so it holds nothing.
 *
 * <p>The server also advertises the first bound as HTTP/2's MAX_CONCURRENT_STREAMS
 * (GrpcServerConfiguration), which well-behaved clients queue by; but Netty enforces its own setting
 * only once the client has acknowledged it, and a client that never sends the SETTINGS ACK opened
 * 200,000 calls on one connection and ran the service out of heap. So the count is kept here, per
 * connection, whatever the client acknowledged. And a bound per connection is no bound over many
 * connections: 200 of them holding 1,000 calls each fill a 384 MB heap as surely, hence the second
 * count (OpenCallsGrpcTest). Both are counted before anything that costs more (a token check, the
 * rate limit), while the call has done no work.
 */
@Configuration(proxyBeanMethods = false)
public class OpenCalls {

    /** The open calls of one connection, set on its attributes when it becomes ready. */
    static final Attributes.Key<AtomicInteger> OPEN_ON_CONNECTION = Attributes.Key.create("tandem-open-calls");

    /** Gives every connection its counter (the TLS twin applies the same customizers). */
    @Bean
    <T extends ServerBuilder<T>> ServerBuilderCustomizer<T> openCallsPerConnection() {
        return builder -> builder.addTransportFilter(new ServerTransportFilter() {
            @Override
            public Attributes transportReady(Attributes attributes) {
                return attributes.toBuilder().set(OPEN_ON_CONNECTION, new AtomicInteger()).build();
            }
        });
    }

    @Bean
    Limit openCallsLimit(LimitsProperties limits, MeterRegistry meters) {
        Limit limit = new Limit(limits.maxCallsPerConnection(), limits.maxOpenCalls());
        Gauge.builder("tandem.grpc.calls.open", limit.openOnServer, AtomicInteger::get)
                .description("gRPC calls open at once over all connections (tandem.limits.max-open-calls bounds it)")
                .register(meters);
        return limit;
    }

    /** Right after the metadata limit, before anything that costs more (a token check, the rate limit). */
    @GlobalServerInterceptor
    @Order(Ordered.HIGHEST_PRECEDENCE + 1)
    public static class Limit implements ServerInterceptor {

        private final int maxPerConnection;
        private final int maxOnServer;
        private final AtomicInteger openOnServer = new AtomicInteger();

        Limit(int maxPerConnection, int maxOnServer) {
            this.maxPerConnection = maxPerConnection;
            this.maxOnServer = maxOnServer;
        }

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                          ServerCallHandler<Q, R> next) {
            AtomicInteger onConnection = call.getAttributes().get(OPEN_ON_CONNECTION);
            if (onConnection == null) {
                return next.startCall(call, headers); // in-process: no connection to bound
            }
            if (onConnection.incrementAndGet() > maxPerConnection) {
                onConnection.decrementAndGet();
                return refuse(call, "this connection has " + maxPerConnection
                        + " calls open already (tandem.limits.max-calls-per-connection)");
            }
            if (openOnServer.incrementAndGet() > maxOnServer) {
                openOnServer.decrementAndGet();
                onConnection.decrementAndGet();
                return refuse(call, "the server has " + maxOnServer + " calls open already (tandem.limits.max-open-calls)");
            }
            Release release = new Release(onConnection);
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

        /** Gives a call's two places back once, however the call ends (close, cancel, complete, a failed start). */
        private final class Release extends AtomicBoolean {

            private final AtomicInteger onConnection;

            Release(AtomicInteger onConnection) {
                this.onConnection = onConnection;
            }

            void run() {
                if (compareAndSet(false, true)) {
                    onConnection.decrementAndGet();
                    openOnServer.decrementAndGet();
                }
            }
        }

        private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, String why) {
            StatusException refused = GrpcErrors.toStatusException(new DomainException(ErrorCode.RESOURCE_EXHAUSTED, why));
            call.close(refused.getStatus(), refused.getTrailers() == null ? new Metadata() : refused.getTrailers());
            return new ServerCall.Listener<>() {
            };
        }
    }
}
