package dev.tandem.config;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The Tandem settings that something other than their own properties class reads, rewritten in the
 * one spelling every reader takes, before any condition or binder reads them. Tandem binds a setting
 * as Spring binds its type, but a condition on a boolean property compares the text with "true", and
 * a duration without a unit is milliseconds to one binder and seconds to another, so the same value
 * meant two things:
 * <ul>
 *   <li>{@code TANDEM_TRACING_ENABLED=on} traced the cache and the SQL statements but left Boot's
 *       OpenTelemetry SDK, to which tandem-service.yml hands the setting on, off: half on;</li>
 *   <li>{@code TANDEM_ADMISSION_ENABLED=on} turned REST's admission valve on, while the gRPC
 *       service's admission configuration, a condition on the text, stayed out and every API call
 *       then failed;</li>
 *   <li>{@code TANDEM_SHUTDOWN_GRACE_PERIOD=30} gave REST's shutdown phase 30 ms and the gRPC server's
 *       grace period 30 s.</li>
 * </ul>
 * A boolean becomes {@code true} or {@code false}, a duration ISO-8601 ({@code PT0.03S} for that 30),
 * which every binder reads alike, as Tandem does. It runs as the context is initialised, before its
 * refresh evaluates any condition, and sees every property source there is by then (a test's too);
 * a value that binds as neither is left as it is, for the binding of its properties class to
 * refuse with the property's name. The scripts and compose files that read
 * {@code TANDEM_TLS_ENABLED} themselves take the same spellings.
 */
public class CanonicalSettings implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /**
     * Each boolean or duration setting that is handed on to another property (the services' YAML) or
     * read by a condition on its text. (Data sizes handed on are bytes to every reader alike; the
     * conditions on {@code tandem.tls.extra-port} and {@code tandem.db.replica.host} read a number and
     * a text, which have one spelling.)
     */
    static final Map<String, Class<?>> READ_ELSEWHERE = Map.of(
            "tandem.tracing.enabled", Boolean.class,
            "tandem.admission.enabled", Boolean.class,
            "tandem.tls.enabled", Boolean.class,
            "tandem.compression.enabled", Boolean.class,
            "tandem.shutdown.grace-period", Duration.class,
            "tandem.cache.redis.connect-timeout", Duration.class);

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        Binder binder = Binder.get(environment);
        Map<String, Object> canonical = new HashMap<>();
        READ_ELSEWHERE.forEach((name, type) -> {
            try {
                binder.bind(name, type).ifBound(value -> canonical.put(name, value.toString()));
            } catch (RuntimeException notOfItsType) {
                // left for its properties class to refuse
            }
        });
        if (!canonical.isEmpty()) {
            environment.getPropertySources().addFirst(new MapPropertySource("tandemCanonicalSettings", canonical));
        }
    }
}
