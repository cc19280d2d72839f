package dev.tandem.tracing;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

import java.util.Map;

/**
 * {@code tandem.tracing.enabled} in the one spelling every switch that follows it reads. The
 * services' settings hand the value on to Boot's own switches ({@code management.opentelemetry.enabled},
 * the export, the {@code @Observed} aspect: tandem-service.yml), whose conditions compare the text
 * with "true", while Tandem binds it as Spring binds a boolean, which takes {@code on}, {@code yes}
 * and {@code 1} for true as well: {@code TANDEM_TRACING_ENABLED=on} traced the cache and the SQL
 * statements but left Boot's OpenTelemetry SDK off, half on. So the value is replaced by
 * {@code true} or {@code false}, whichever it binds as, before any condition reads it (at the
 * context's refresh, where it sees every property source, a test's too). A value that binds as
 * neither is left for the binding of {@link TracingProperties} to refuse.
 */
public class TracingSwitch implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    static final String PROPERTY = "tandem.tracing.enabled";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        var environment = context.getEnvironment();
        try {
            Binder.get(environment).bind(PROPERTY, Boolean.class).ifBound(enabled -> environment.getPropertySources()
                    .addFirst(new MapPropertySource("tandemTracingSwitch", Map.of(PROPERTY, enabled.toString()))));
        } catch (RuntimeException notABoolean) {
            // the binding of TracingProperties reports it, with the property's name and value
        }
    }
}
