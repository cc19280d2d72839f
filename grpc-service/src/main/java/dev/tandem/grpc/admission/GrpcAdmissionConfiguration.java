package dev.tandem.grpc.admission;

import dev.tandem.admission.AdmissionControl;
import io.grpc.ServerBuilder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerExecutorProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.server.ServerBuilderCustomizer;

/**
 * With admission control on, calls are admitted as they arrive ({@link AdmissionAtArrival}); off, the
 * server is built as if admission control did not exist.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("tandem.admission.enabled")
class GrpcAdmissionConfiguration {

    @Bean
    AdmissionAtArrival admissionAtArrival(AdmissionControl admission, GrpcServerExecutorProvider callExecutor) {
        return new AdmissionAtArrival(admission, callExecutor.getExecutor());
    }

    /**
     * The server's default executor becomes direct, so a call's method lookup (where the supplier is
     * asked) runs on the transport thread; every call but a refused one is then sent to the call
     * executor Boot installed. Boot applies its executor before these customizers, so this wins; the
     * TLS twin ({@code TlsExtraPort}) applies the same beans in the same order.
     */
    @Bean
    <T extends ServerBuilder<T>> ServerBuilderCustomizer<T> admissionAtArrivalInstaller(AdmissionAtArrival arrival) {
        return builder -> builder.directExecutor().callExecutor(arrival);
    }
}
