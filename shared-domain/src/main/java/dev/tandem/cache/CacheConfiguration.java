package dev.tandem.cache;

import com.zaxxer.hikari.HikariDataSource;
import dev.tandem.tracing.DomainObservations;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The cache's beans; imported by TandemDomainConfiguration, which also provides the
 * {@link CacheCatalog} of the caches the features declare.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(CacheProperties.class)
public class CacheConfiguration {

    @Bean
    TieredCache tieredCache(CacheProperties properties, CacheCatalog catalog,
                            ObjectProvider<RedisConnectionFactory> redis, ObjectProvider<MeterRegistry> registry,
                            ObjectProvider<DomainObservations> observations, Clock clock, DataSource dataSource,
                            DataSourceProperties database) {
        // The services' actuator provides the registry that /actuator/prometheus scrapes; the
        // domain alone (tests, make seed) has none, and then the meters are only kept locally.
        boolean cached = properties.mode() != CacheMode.NONE;
        return new TieredCache(properties, catalog, properties.mode().usesL2() ? redis.getObject() : null,
                registry.getIfAvailable(SimpleMeterRegistry::new),
                observations.getIfAvailable(DomainObservations::off).registry(), clock, dataSource,
                cached ? followerConnection(database) : null);
    }

    /**
     * The log follower's own connection to the primary (spring.datasource.url, username and password
     * as Boot binds them for the application's pool), in a pool of one:
     * not a bean, so it is neither the application's DataSource nor wrapped by its request deadlines,
     * and a saturated request pool cannot delay it. Connecting is lazy: a database that is down at
     * start-up fails the start through the main pool (and Flyway), not here.
     */
    private static HikariDataSource followerConnection(DataSourceProperties database) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName("tandem-cache-log");
        pool.setJdbcUrl(database.determineUrl());
        pool.setUsername(database.determineUsername());
        pool.setPassword(database.determinePassword());
        pool.setMaximumPoolSize(1);
        pool.setMinimumIdle(1);
        pool.setAutoCommit(true);
        pool.setConnectionTimeout(2000);
        pool.setValidationTimeout(1000);
        pool.setInitializationFailTimeout(-1);
        // A connection that stops answering without failing (a path that stopped delivering, a
        // server paused, a half-open connection after a failover) fails the follower's statement
        // after this: the pass fails, the instance reads L2 as during an outage, and the pool opens a
        // new connection. Without it the statement (or a new connection's handshake) waited for as
        // long as the kernel kept the connection, hours: the pass neither completed nor failed, so
        // the instance read neither L1 nor L2, and never recovered if the old path did not come back
        // (StalledDatabaseTest). Far above what any of its statements takes (each reads or deletes
        // at most a batch, by key or index); as long as the services' default request timeout.
        pool.addDataSourceProperty("socketTimeout", Long.toString(FOLLOWER_SOCKET_TIMEOUT.toMillis()));
        return pool;
    }

    /** How long the log follower's connection may stay silent during a statement (Connector/J's socketTimeout). */
    static final Duration FOLLOWER_SOCKET_TIMEOUT = Duration.ofSeconds(10);

    /**
     * A write's relay runs once its transaction's connection is back in the pool, not in
     * afterCompletion while the connection is still held ({@link RelayAfterRelease}). Static and
     * infrastructure: the auto-proxy creator asks for advisors before it proxies the beans, and
     * the one @EnableTransactionManagement registers takes infrastructure advisors only.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor tandemCacheRelayAfterRelease(ObjectProvider<TieredCache> cache) {
        return RelayAfterRelease.advisor(cache);
    }

    @Bean
    CacheEndpoint cacheEndpoint(TieredCache cache) {
        return new CacheEndpoint(cache);
    }

    /**
     * Lettuce reconnects with exponential back-off, by default up to 30 s between attempts; after
     * an outage of a few seconds the next attempt can be many seconds away, and L2 stays unread
     * meanwhile. Capped at one second, so the cache is back about a second after Redis.
     */
    @Bean
    ClientResourcesBuilderCustomizer tandemCacheReconnectDelay() {
        return resources -> resources.reconnectDelay(
                Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS));
    }

    /**
     * While the connection to Redis is down, fail commands at once instead of queueing them until
     * they time out: the cache then falls through to MySQL without waiting, and the breaker opens
     * after a handful of calls. Lettuce keeps reconnecting in the background.
     *
     * <p>Commands time out after {@code tandem.cache.redis.command-timeout}. spring.data.redis.timeout
     * (which Lettuce also uses for the connection handshake) stays longer, because the first
     * handshake of a cold JVM can take more than 100 ms and would otherwise fail the first calls.
     */
    @Bean
    LettuceClientOptionsBuilderCustomizer tandemCacheLettuceOptions(CacheProperties properties) {
        return options -> options
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(properties.redis().commandTimeout()));
    }
}
