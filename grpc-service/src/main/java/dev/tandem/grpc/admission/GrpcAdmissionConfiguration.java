package dev.tandem.grpc.admission;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.grpc.server.CallThreads;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * With admission control on, calls are admitted as they arrive ({@link AdmissionAtArrival}, in front
 * of the server's {@link CallThreads}); off, the server chooses its threads as if admission control
 * did not exist.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("tandem.admission.enabled")
class GrpcAdmissionConfiguration {

    /**
     * Primary: the server's installer ({@code GrpcServerConfiguration#callThreadsChosenAtArrival})
     * takes the one supplier of call executors, this one when it exists, else the call threads it
     * decorates.
     */
    @Bean
    @Primary
    AdmissionAtArrival admissionAtArrival(AdmissionControl admission, CallThreads threads) {
        return new AdmissionAtArrival(admission, threads);
    }
}
