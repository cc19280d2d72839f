package dev.tandem.db;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.ToDoubleFunction;

/**
 * With {@code tandem.db.replica.host} set: two Hikari pools and the {@link ReplicaRoutingDataSource}
 * over them as the application's DataSource (JPA, JdbcClient, Flyway and health use it; Boot's own
 * pool backs off). Without it this configuration does nothing and Boot builds the one pool as before.
 * <p>
 * The primary pool is configured exactly as Boot's would be ({@code spring.datasource.url/username/
 * password} and {@code spring.datasource.hikari.*}); the replica pool takes the same Hikari settings,
 * then its own URL, credentials, size and connection timeout from {@code tandem.db.replica.*}, and it
 * does not fail the start when the replica is down (reads use the primary until it is back).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("!'${tandem.db.replica.host:}'.isBlank()")
@EnableConfigurationProperties(ReplicaProperties.class)
public class ReplicaConfiguration {

    @Bean
    DataSource primaryDataSource(Environment environment, DataSourceProperties primary) {
        HikariDataSource pool = hikari(environment);
        pool.setJdbcUrl(primary.determineUrl());
        pool.setUsername(primary.determineUsername());
        pool.setPassword(primary.determinePassword());
        pool.setPoolName("tandem-primary");
        return pool;
    }

    @Bean
    DataSource replicaDataSource(Environment environment, ReplicaProperties replica) {
        HikariDataSource pool = hikari(environment);
        pool.setJdbcUrl(replica.url());
        pool.setUsername(replica.user());
        pool.setPassword(replica.password());
        pool.setMaximumPoolSize(replica.poolSize());
        pool.setConnectionTimeout(replica.connectionTimeout().toMillis());
        // A replica that is down at start-up must not stop the service: reads use the primary.
        pool.setInitializationFailTimeout(-1);
        pool.setPoolName("tandem-replica");
        return pool;
    }

    /** Both pools arrive wrapped by {@link GuardedDataSource}; the router itself is left unwrapped. */
    @Bean
    @Primary
    ReplicaRoutingDataSource dataSource(@Qualifier("primaryDataSource") DataSource primary,
                                        @Qualifier("replicaDataSource") DataSource replica,
                                        ReplicaProperties properties,
                                        DatabaseProperties db,
                                        ObjectProvider<MeterRegistry> registries) throws SQLException {
        boolean autoCommit = primary.unwrap(HikariDataSource.class).isAutoCommit();
        GtidDialect dialect = GtidDialect.forProduct(db.product());
        // A primary without GTIDs in a binary log gives no position to fence replica reads at: found
        // here, it stops the start naming what is missing; found by the first read, the service
        // started and answered every read that missed the cache with an internal error.
        try (Connection connection = primary.getConnection()) {
            dialect.primaryPosition(connection);
        }
        ReplicaRoutingDataSource routing = new ReplicaRoutingDataSource(primary, replica,
                dialect, properties.maxWait(), properties.connectionTimeout(),
                ReplicaRoutingDataSource.breaker(properties.breaker()), autoCommit);
        registries.ifAvailable(registry -> {
            count(registry, routing, "replica", "fenced", r -> r.reads().replica());
            count(registry, routing, "primary", "replica-behind", r -> r.reads().primaryReplicaBehind());
            count(registry, routing, "primary", "replica-unavailable", r -> r.reads().primaryReplicaUnavailable());
            count(registry, routing, "primary", "replica-breaker-open", r -> r.reads().primaryBreakerOpen());
            // The same numbers as the cache's Redis breaker gauge (tandem.cache.redis.breaker.state).
            Gauge.builder("tandem.db.replica.breaker.state", routing.breaker(), b -> switch (b.getState()) {
                        case CLOSED -> 0;
                        case HALF_OPEN -> 1;
                        case OPEN -> 2;
                        default -> 3;
                    }).description("Circuit breaker around the read replica: 0 closed, 1 half-open, 2 open, 3 disabled/forced")
                    .register(registry);
        });
        return routing;
    }

    private static void count(MeterRegistry registry, ReplicaRoutingDataSource routing, String source, String reason,
                              ToDoubleFunction<ReplicaRoutingDataSource> value) {
        FunctionCounter.builder("tandem.db.reads", routing, value)
                .description("Read-only transactions by the database that served them")
                .tags("source", source, "reason", reason)
                .register(registry);
    }

    private static HikariDataSource hikari(Environment environment) {
        HikariDataSource pool = new HikariDataSource();
        Binder.get(environment).bind("spring.datasource.hikari", Bindable.ofInstance(pool));
        return pool;
    }
}
