package dev.tandem.config;

import dev.tandem.admission.AdmissionConfiguration;
import dev.tandem.auth.AuthConfiguration;
import dev.tandem.cache.CacheCatalog;
import dev.tandem.cache.CacheConfiguration;
import dev.tandem.compression.CompressionProperties;
import dev.tandem.db.DatabaseHealthIndicator;
import dev.tandem.db.DatabaseProperties;
import dev.tandem.db.GuardedDataSource;
import dev.tandem.db.ReplicaConfiguration;
import dev.tandem.deadline.RequestDeadlines;
import dev.tandem.error.Validation;
import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupService;
import dev.tandem.group.watch.WatchProperties;
import dev.tandem.limits.LimitsProperties;
import dev.tandem.ratelimit.RateLimitConfiguration;
import dev.tandem.seed.SeedProperties;
import dev.tandem.seed.SeedRunner;
import dev.tandem.shutdown.ShutdownProperties;
import dev.tandem.tls.TlsProperties;
import dev.tandem.tracing.DomainObservations;
import dev.tandem.tracing.TracingConfiguration;
import dev.tandem.user.UserCaches;
import dev.tandem.user.UserService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

import java.time.Clock;

/**
 * The one wiring of the domain. Both services import it, and so do the tests, so what is
 * tested is what runs.
 */
@Configuration(proxyBeanMethods = false)
@ComponentScan(basePackageClasses = {GroupService.class, UserService.class, Validation.class, SeedRunner.class,
        RequestDeadlines.class, DatabaseHealthIndicator.class})
@EntityScan(basePackageClasses = {GroupService.class, UserService.class})
@EnableJpaRepositories(basePackageClasses = {GroupService.class, UserService.class})
@EnableConfigurationProperties({DatabaseProperties.class, SeedProperties.class, LimitsProperties.class,
        CompressionProperties.class, ShutdownProperties.class, TlsProperties.class, WatchProperties.class})
@Import({CacheConfiguration.class, AuthConfiguration.class, ReplicaConfiguration.class, RateLimitConfiguration.class,
        AdmissionConfiguration.class, TracingConfiguration.class})
public class TandemDomainConfiguration {

    /** Every cache the features declare; the cache sizes its per-cache state by it. */
    @Bean
    CacheCatalog cacheCatalog() {
        return CacheCatalog.of(GroupCaches.ALL, UserCaches.ALL);
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    /** Every JDBC call held to its request's deadline (static: a post-processor is created before other beans). */
    @Bean
    static GuardedDataSource guardedDataSource(ObjectProvider<DomainObservations> observations) {
        return new GuardedDataSource(observations);
    }
}
