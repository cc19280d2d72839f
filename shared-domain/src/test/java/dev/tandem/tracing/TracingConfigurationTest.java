package dev.tandem.tracing;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.RequestReplyReceiverContext;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.TracingObservationHandler;
import dev.tandem.config.CanonicalSettings;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.NoopTracerAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether a request is traced, decided by {@code tandem.tracing.enabled} alone: the services'
 * settings (tandem-service.yml) and Boot's tracing auto-configuration as the services have it, and a
 * server observation as both wires make one (a receiver context whose carrier may hold a W3C
 * traceparent). The wires' tracing tests show the spans a request gives while tracing is on.
 */
class TracingConfigurationTest {

    private static final String CALLERS_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    private final ApplicationContextRunner service = new ApplicationContextRunner()
            .withInitializer(new ConfigDataApplicationContextInitializer())
            .withInitializer(new CanonicalSettings())
            .withPropertyValues("spring.config.location=classpath:tandem-service.yml")
            .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
                    OpenTelemetrySdkAutoConfiguration.class, OpenTelemetryTracingAutoConfiguration.class,
                    MicrometerTracingAutoConfiguration.class, NoopTracerAutoConfiguration.class))
            .withUserConfiguration(TracingConfiguration.class);

    @Test
    void offByDefaultARequestMakesNoSpanNotEvenOneThatIsDroppedUnexported() {
        service.run(context -> {
            assertThat(serverSpan(context, Map.of()).context().traceId()).isEmpty();
            assertThat(serverSpan(context, sampledTraceparent()).context().traceId()).isEmpty();
        });
    }

    /** Every spelling Spring binds as false turns it off alike. Failed before for "off": a span was recorded. */
    @Test
    void offSpelledAsSpringBindsFalseMakesNoSpanEither() {
        for (String off : new String[]{"false", "off", "no", "0"}) {
            service.withPropertyValues("tandem.tracing.enabled=" + off).run(context ->
                    assertThat(serverSpan(context, sampledTraceparent()).context().traceId()).as(off).isEmpty());
        }
    }

    @Test
    void onARequestRecordsItsSpanInTheCallersTrace() {
        service.withPropertyValues("tandem.tracing.enabled=true").run(context -> {
            Span joined = serverSpan(context, sampledTraceparent());
            assertThat(joined.context().traceId()).isEqualTo(CALLERS_TRACE);
            assertThat(joined.context().sampled()).isTrue();
            Span started = serverSpan(context, Map.of());
            assertThat(started.context().traceId()).isNotEmpty().isNotEqualTo(CALLERS_TRACE);
            assertThat(started.context().sampled()).isTrue();
        });
    }

    /**
     * Every spelling Spring binds as true turns on Boot's switches too (its OpenTelemetry SDK among
     * them), which compare the text with "true". Failed before for "on": the domain's own spans were
     * on while Boot's SDK, and so the export, was off.
     */
    @Test
    void onSpelledAsSpringBindsTrueTurnsOnBootsSwitchesToo() {
        for (String on : new String[]{"true", "on", "yes", "1"}) {
            service.withPropertyValues("tandem.tracing.enabled=" + on).run(context -> {
                assertThat(context).as(on).hasSingleBean(SdkTracerProvider.class);
                assertThat(context.getBean(TracingProperties.class).enabled()).as(on).isTrue();
                assertThat(serverSpan(context, sampledTraceparent()).context().traceId()).as(on).isEqualTo(CALLERS_TRACE);
            });
        }
    }

    private static Map<String, String> sampledTraceparent() {
        return Map.of("traceparent", "00-" + CALLERS_TRACE + "-00f067aa0ba902b7-01");
    }

    /** The span of a server observation started on the service's registry with these request headers. */
    private static Span serverSpan(ApplicationContext context, Map<String, String> headers) {
        var request = new RequestReplyReceiverContext<Map<String, String>, Object>(Map::get);
        request.setCarrier(headers);
        Observation observation = Observation.start("test.server", () -> request, context.getBean(ObservationRegistry.class));
        try {
            TracingObservationHandler.TracingContext tracing = request.getRequired(TracingObservationHandler.TracingContext.class);
            return tracing.getSpan();
        } finally {
            observation.stop();
        }
    }
}
