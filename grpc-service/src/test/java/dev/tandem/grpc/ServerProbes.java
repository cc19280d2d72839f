package dev.tandem.grpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test-only observers of the running server: where it listens, and on what kind of thread the
 * service methods run. They observe and never change a call.
 */
@TestConfiguration(proxyBeanMethods = false)
public class ServerProbes {

    private final AtomicReference<List<? extends SocketAddress>> listenAddresses = new AtomicReference<>();
    private final AtomicReference<Thread> lastHandlerThread = new AtomicReference<>();

    @EventListener
    void serverStarted(GrpcServerStartedEvent event) {
        listenAddresses.set(event.getServer().getListenSockets());
    }

    public List<? extends SocketAddress> listenAddresses() {
        return listenAddresses.get();
    }

    public Thread lastHandlerThread() {
        return lastHandlerThread.get();
    }

    /** Records the thread that delivers half-close, which is the thread a unary handler runs on. */
    @Bean
    @GlobalServerInterceptor
    ServerInterceptor handlerThreadRecorder() {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                              ServerCallHandler<Q, R> next) {
                return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                    @Override
                    public void onHalfClose() {
                        lastHandlerThread.set(Thread.currentThread());
                        super.onHalfClose();
                    }
                };
            }
        };
    }
}
