package dev.tandem.ratelimit;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.tandem.auth.WriteAccess;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The one {@link ClientRateLimiter} of a service; rest-service's filter and grpc-service's
 * interceptor ask it about every API request.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RateLimitProperties.class)
public class RateLimitConfiguration {

    @Bean
    ClientRateLimiter clientRateLimiter(RateLimitProperties properties, WriteAccess writeAccess,
                                        ObjectProvider<MeterRegistry> registry) {
        return new ClientRateLimiter(properties, writeAccess, registry.getIfAvailable(SimpleMeterRegistry::new),
                Ticker.systemTicker());
    }
}
