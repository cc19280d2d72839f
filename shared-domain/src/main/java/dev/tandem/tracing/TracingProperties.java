package dev.tandem.tracing;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code tandem.tracing.*} (TANDEM_TRACING_ENABLED): whether requests are traced, documented with
 * its defaults in tandem-service.yml. Off by default, so that an untraced service pays nothing for
 * the spans of its own code: the cache levels and the SQL statements are observed only while this
 * is on (see {@link DomainObservations}), and tandem-service.yml turns Boot's tracing switches
 * (export, the OpenTelemetry SDK, the {@code @Observed} aspect on the shared services) on and off
 * with it. The sampling probability and the OTLP endpoint are Boot's own properties.
 *
 * @param enabled trace requests and export their spans over OTLP
 */
@ConfigurationProperties("tandem.tracing")
public record TracingProperties(boolean enabled) {
}
