package dev.tandem.grpc.server;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.health.v1.HealthGrpc;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads a gRPC call runs on, chosen as it arrives: health checks ({@code grpc.health.v1}) on two
 * platform threads of their own, every other call on the call executor (a virtual thread per call).
 *
 * <p>Why: on a saturated instance every carrier is busy, and a virtual thread waits for one behind
 * every queued call; a health check on the call executor then ran out of its deadline (a Kubernetes
 * probe's timeout) and the instance was restarted while it was only busy. The kernel schedules
 * platform threads beside the carriers. A check reads a status held in memory, so two are plenty.
 *
 * <p>grpc-java asks a {@link ServerCallExecutorSupplier} per call where it looks the call's method up,
 * which is on the transport (event loop) thread once the server's default executor is direct (as
 * {@link GrpcServerConfiguration} installs it). Admission control decorates this
 * ({@code AdmissionAtArrival}): it admits or refuses an API call there, and sends the rest here.
 */
public final class CallThreads implements ServerCallExecutorSupplier, AutoCloseable {

    private final Executor calls;
    private final ExecutorService healthChecks =
            Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().name("grpc-health-", 0).factory());

    public CallThreads(Executor calls) {
        this.calls = calls;
    }

    @Override
    public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
        return HealthGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName()) ? healthChecks : calls;
    }

    /** Closed with the context, after the gRPC server has stopped. */
    @Override
    public void close() {
        healthChecks.shutdownNow();
    }
}
