package dev.tandem.grpc.server;

import dev.tandem.tls.TlsProperties;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.NettyServerBuilder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerExecutorProvider;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerFactoryCustomizer;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.util.LambdaSafe;
import org.springframework.context.SmartLifecycle;
import org.springframework.grpc.server.NettyGrpcServerFactory;
import org.springframework.grpc.server.ServerBuilderCustomizer;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.grpc.server.service.GrpcServiceConfigurer;
import org.springframework.grpc.server.service.GrpcServiceDiscoverer;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A second gRPC server on {@code tandem.tls.extra-port} that serves the same services (with the same
 * interceptors, executor and limits) over TLS while {@code spring.grpc.server.port} stays as
 * configured (plaintext unless {@code tandem.tls.enabled}). It exists so that a TLS call and a
 * plaintext one can be measured against the same process: the bench's TLS ÷ plain ratios paired
 * cells of two different starts before, and the spread between starts was larger than the cost of TLS.
 *
 * <p>Spring gRPC runs one server per context, and Boot's list of builder customizers is not public,
 * so this builds the twin from the same public parts Boot uses for the main server: the discovered
 * services passed through the same {@link GrpcServiceConfigurer} (global interceptors, exception
 * handling), the factory customizers, the call executor, the {@link ServerBuilderCustomizer} beans,
 * and the {@code spring.grpc.server.inbound.*} and {@code keepalive.*} limits (which Boot applies in a
 * package-private customizer, repeated in {@link #applyServerProperties}). Only the port and TLS differ.
 * It publishes no server lifecycle events: listeners of those expect the one main server.
 */
@Component
@ConditionalOnExpression("${tandem.tls.extra-port:0} > 0")
class TlsExtraPort implements SmartLifecycle {

    private final GrpcServerLifecycle server;

    TlsExtraPort(TlsProperties tls, GrpcServerProperties properties, SslBundles bundles,
                 GrpcServiceDiscoverer discoverer, GrpcServiceConfigurer configurer,
                 ObjectProvider<GrpcServerExecutorProvider> executor,
                 ObjectProvider<ServerBuilderCustomizer<?>> builderCustomizers,
                 ObjectProvider<GrpcServerFactoryCustomizer> factoryCustomizers) {
        List<ServerBuilderCustomizer<NettyServerBuilder>> customizers = List.of(builder -> {
            applyServerProperties(properties, builder);
            executor.ifAvailable(provider -> builder.executor(provider.getExecutor()));
            LambdaSafe.callbacks(ServerBuilderCustomizer.class, builderCustomizers.orderedStream().toList(), builder)
                    .withLogger(TlsExtraPort.class)
                    .invoke(customizer -> customizer.customize(builder));
        });
        String host = properties.getAddress() == null ? "*" : properties.getAddress().getHostAddress();
        var keys = bundles.getBundle(properties.getSsl().getBundle()).getManagers().getKeyManagerFactory();
        NettyGrpcServerFactory factory = new NettyGrpcServerFactory(host + ":" + tls.extraPort(), customizers, keys, null,
                TlsServerCredentials.ClientAuth.NONE);
        factoryCustomizers.orderedStream().forEach(customizer -> customizer.customize(factory));
        discoverer.findServices().stream().map(spec -> configurer.configure(spec, factory)).forEach(factory::addService);
        server = new GrpcServerLifecycle(factory, properties.getShutdown().getGracePeriod(), event -> { });
    }

    /** What Boot's PropertiesServerBuilderCustomizer does for the main server. */
    static void applyServerProperties(GrpcServerProperties properties, NettyServerBuilder builder) {
        var inbound = properties.getInbound();
        if (inbound.getMessage().getMaxSize() != null) {
            builder.maxInboundMessageSize(Math.toIntExact(inbound.getMessage().getMaxSize().toBytes()));
        }
        if (inbound.getMetadata().getMaxSize() != null) {
            builder.maxInboundMetadataSize(Math.toIntExact(inbound.getMetadata().getMaxSize().toBytes()));
        }
        var keepalive = properties.getKeepalive();
        duration(keepalive.getTime(), builder::keepAliveTime);
        duration(keepalive.getTimeout(), builder::keepAliveTimeout);
        duration(keepalive.getPermit().getTime(), builder::permitKeepAliveTime);
        builder.permitKeepAliveWithoutCalls(keepalive.getPermit().isWithoutCalls());
        duration(keepalive.getConnection().getMaxIdleTime(), builder::maxConnectionIdle);
        duration(keepalive.getConnection().getMaxAge(), builder::maxConnectionAge);
        duration(keepalive.getConnection().getGracePeriod(), builder::maxConnectionAgeGrace);
    }

    private static void duration(Duration value, BiConsumer<Long, TimeUnit> setter) {
        if (value != null) {
            setter.accept(value.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** The port the twin listens on (the configured one, or the one chosen for port 0). */
    int port() {
        return server.getPort();
    }

    @Override
    public void start() {
        server.start();
    }

    @Override
    public void stop() {
        server.stop();
    }

    @Override
    public boolean isRunning() {
        return server.isRunning();
    }

    /** The main server's phase: both stop first, together, before the beans their calls use. */
    @Override
    public int getPhase() {
        return server.getPhase();
    }
}
