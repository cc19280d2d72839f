package dev.tandem.grpc.server;

import dev.tandem.limits.LimitsProperties;
import io.grpc.DecompressorRegistry;
import io.grpc.ServerBuilder;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.netty.NettyServerBuilder;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerExecutorProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.server.ServerBuilderCustomizer;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * How the gRPC server runs handlers. Every RPC ends in blocking JDBC, so each call gets its own
 * virtual thread: a blocked call parks cheaply instead of holding one of a few platform threads,
 * and concurrency is bounded by the connection pool rather than by grpc-java's default pool.
 * Health checks are the exception: they run on platform threads of their own ({@link CallThreads}).
 */
@Configuration(proxyBeanMethods = false)
public class GrpcServerConfiguration {

    /**
     * Boot's hook for the server's call executor (it passes it to ServerBuilder.executor). The
     * executor stays inside this bean rather than being a bean itself, because an Executor bean
     * would displace Boot's own applicationTaskExecutor.
     */
    @Bean
    VirtualThreadCallExecutor grpcServerExecutorProvider() {
        return new VirtualThreadCallExecutor();
    }

    @Bean
    CallThreads callThreads(GrpcServerExecutorProvider callExecutor) {
        return new CallThreads(callExecutor.getExecutor());
    }

    /**
     * The server's default executor becomes direct, so a call's method lookup (where the supplier is
     * asked) runs on the transport thread, and the supplier sends each call to its threads: {@link
     * CallThreads}, or, with admission control on, the {@code AdmissionAtArrival} that decorates it
     * (the primary supplier then). Boot applies its executor before these customizers, so this wins;
     * the TLS twin ({@code TlsExtraPort}) applies the same beans in the same order. The default
     * executor also runs the TLS handshake's delegated tasks, which direct keeps on the event loop
     * (off it, with every carrier busy, a handshake waited for a virtual thread: HealthChecksGrpcTest).
     */
    @Bean
    <T extends ServerBuilder<T>> ServerBuilderCustomizer<T> callThreadsChosenAtArrival(ServerCallExecutorSupplier threads) {
        return builder -> builder.directExecutor().callExecutor(threads);
    }

    /**
     * gzip requests are decompressed by {@link LazyGzip}, so that bytes labelled gzip that are not
     * gzip are the client's INVALID_ARGUMENT like any bytes that do not parse (grpc-java's own
     * decompressor made them UNKNOWN). The TLS twin ({@code TlsExtraPort}) applies the same beans.
     */
    @Bean
    <T extends ServerBuilder<T>> ServerBuilderCustomizer<T> lazyGzipRequests() {
        return builder -> builder.decompressorRegistry(DecompressorRegistry.getDefaultInstance().with(new LazyGzip(), true));
    }

    /**
     * At most {@code tandem.limits.max-calls-per-connection} calls at once on one connection
     * (HTTP/2's MAX_CONCURRENT_STREAMS; Netty refuses a stream above it with REFUSED_STREAM). grpc-java
     * leaves it unbounded, and nothing else bounds the calls a connection opens while the rate limit
     * and admission control are off (the defaults): one connection held 200,000 calls that never
     * ended their requests and the service ran out of heap (OpenCallsGrpcTest). Netty
     * enforces the setting only once the client acknowledged it, so OpenCalls counts too.
     *
     * <p>Only the Netty builder has the setting; a builder without it (in-process) has no
     * connections to bound.
     */
    @Bean
    <T extends ServerBuilder<T>> ServerBuilderCustomizer<T> maxCallsPerConnection(LimitsProperties limits) {
        return builder -> {
            if (builder instanceof NettyServerBuilder netty) {
                netty.maxConcurrentCallsPerConnection(limits.maxCallsPerConnection());
            }
        };
    }

    /** Closed when the context is destroyed, which is after the gRPC server has stopped. */
    static final class VirtualThreadCallExecutor implements GrpcServerExecutorProvider, AutoCloseable {

        private final ExecutorService executor =
                Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("grpc-call-", 0).factory());

        @Override
        public ExecutorService getExecutor() {
            return executor;
        }

        @Override
        public void close() {
            executor.close();
        }
    }
}
