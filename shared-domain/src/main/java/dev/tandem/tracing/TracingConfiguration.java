package dev.tandem.tracing;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tracing's part of the domain wiring (imported by TandemDomainConfiguration). The spans
 * themselves are Boot's: the wire handlers' (Spring MVC's and gRPC's server observations), the shared
 * services' ({@code @Observed}, Boot's aspect), the cache levels' ({@code dev.tandem.cache}) and the
 * SQL statements' ({@code dev.tandem.db.GuardedDataSource}); Micrometer Tracing's OpenTelemetry bridge
 * turns them into spans and Boot's OTLP exporter sends them.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(TracingProperties.class)
public class TracingConfiguration {

    @Bean
    DomainObservations domainObservations(TracingProperties properties, ObjectProvider<ObservationRegistry> registry) {
        // The domain without the services' actuator (tests, make seed) has no registry: nothing to trace into.
        return new DomainObservations(properties.enabled(), () -> registry.getIfAvailable(() -> ObservationRegistry.NOOP));
    }
}
