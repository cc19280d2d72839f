package dev.tandem.tracing;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

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

    /**
     * Tracing off: Micrometer Tracing's no-op tracer and propagator, so the HTTP and gRPC server
     * observations (which run either way, for their metrics) make no spans. Without these, Boot's
     * tracer with the OpenTelemetry SDK switched off is that of its "disabled" SDK
     * ({@code OpenTelemetrySdk.builder().build()}), whose tracer provider has the default sampler and no
     * span processor: it samples every span, records it with its events and drops it when it ends
     * (open-telemetry/opentelemetry-java#8740), so an untraced service paid for a recorded span per
     * request. The server observation's span comes from the propagator (it reads an incoming
     * traceparent), hence both. Boot's OpenTelemetry bridge backs off when these beans exist.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(TracingOff.class)
    static class Untraced {

        @Bean
        Tracer untracedTracer() {
            return Tracer.NOOP;
        }

        @Bean
        Propagator untracedPropagator() {
            return Propagator.NOOP;
        }
    }

    /**
     * {@code tandem.tracing.enabled} bound as the rest of the service binds it (off, no and 0 are
     * false too), not compared as text: {@code havingValue = "false"} let {@code off} turn tracing
     * off everywhere but here, where it brought back the recorded-and-dropped span per request.
     */
    static final class TracingOff extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean enabled = Binder.get(context.getEnvironment()).bind("tandem.tracing.enabled", Boolean.class).orElse(false);
            return new ConditionOutcome(!enabled, "tandem.tracing.enabled is " + enabled);
        }
    }
}
