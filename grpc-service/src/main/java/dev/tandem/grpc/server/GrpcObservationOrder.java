package dev.tandem.grpc.server;

import io.micrometer.core.instrument.binder.grpc.GrpcServerObservationConvention;
import io.micrometer.core.instrument.binder.grpc.ObservationGrpcServerInterceptor;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.exception.CompositeGrpcExceptionHandler;
import org.springframework.grpc.server.exception.GrpcExceptionHandler;
import org.springframework.grpc.server.exception.GrpcExceptionHandlerInterceptor;

import java.util.List;

/**
 * Where a call starts being observed (the {@code grpc.server} metrics and span): right after
 * admission control, as REST's observation filter runs after its admission valve, so both wires
 * count and trace what the rate limit and the write check refuse, and neither counts what admission
 * sheds or what the transport's limits refuse (REST: Tomcat's refusals of a request head; gRPC:
 * MetadataLimitInterceptor, which runs first). Boot's own interceptor has order 0, behind every
 * one of these, so a call they refused was in no metric on gRPC while REST counted its 401 and
 * 429; Boot backs off when this bean exists.
 */
@Configuration(proxyBeanMethods = false)
// Boot's own switches for its interceptor, which this one replaces.
@ConditionalOnBooleanProperty(name = "spring.grpc.server.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "spring.grpc.server.observation.enabled", matchIfMissing = true)
class GrpcObservationOrder {

    /** After AdmissionInterceptor (HIGHEST_PRECEDENCE + 3), before RateLimitInterceptor (+ 5). */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 4;

    /** As Boot makes it (a GrpcServerObservationConvention bean applies), only ordered otherwise. */
    @Bean
    @GlobalServerInterceptor
    @Order(ORDER)
    ObservationGrpcServerInterceptor observationGrpcServerInterceptor(ObservationRegistry registry,
            ObjectProvider<GrpcServerObservationConvention> customConvention) {
        ObservationGrpcServerInterceptor interceptor = new ObservationGrpcServerInterceptor(registry);
        customConvention.ifAvailable(interceptor::setCustomConvention);
        return interceptor;
    }

    /**
     * Where an exception a call throws becomes its status: inside the observation, so that it counts
     * the status the client gets. Boot's own (which this one replaces, as it backs off when one
     * exists) has no order and ran outside every interceptor: the observation saw the exception go by
     * and no status, and counted every failed call (NOT_FOUND, INVALID_ARGUMENT, ABORTED, ...) as
     * UNKNOWN. Inside every interceptor that closes the calls it refuses itself (rate limit, write
     * check, watch client), outside the deadline's (CallDeadlineInterceptor, HIGHEST_PRECEDENCE +
     * 100), which throws for it what it saw cut short by the deadline.
     */
    @Bean
    @GlobalServerInterceptor
    @Order(Ordered.HIGHEST_PRECEDENCE + 50)
    GrpcExceptionHandlerInterceptor grpcGlobalExceptionHandlerInterceptor(List<GrpcExceptionHandler> handlers) {
        return new GrpcExceptionHandlerInterceptor(new CompositeGrpcExceptionHandler(handlers.toArray(GrpcExceptionHandler[]::new)));
    }
}
