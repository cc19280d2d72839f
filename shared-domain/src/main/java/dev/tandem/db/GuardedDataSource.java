package dev.tandem.db;

import dev.tandem.tracing.DomainObservations;
import net.ttddyy.dsproxy.support.ProxyDataSource;
import net.ttddyy.dsproxy.support.ProxyDataSourceBuilder;
import net.ttddyy.observation.tracing.DataSourceObservationListener;
import net.ttddyy.observation.tracing.JdbcObservationDocumentation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

import javax.sql.DataSource;
import java.util.Set;

/**
 * Wraps the application's DataSource (Hikari) in datasource-proxy's proxy with the
 * {@link DeadlineJdbcListener}, so that every connection, statement and commit of every request
 * is held to its deadline, whichever code (Hibernate, JdbcClient) runs it. Health, metrics and
 * Flyway see the same pool through it (the proxy unwraps to Hikari). With a read replica, each of
 * the two pools is wrapped and the {@link ReplicaRoutingDataSource} over them is not: wrapping it too
 * would guard every statement twice.
 *
 * <p>While tracing is on ({@code tandem.tracing.enabled}), the same proxy also carries
 * datasource-micrometer's observation listener: a span per connection and, inside it, one per
 * statement (its SQL as an attribute, without parameter values). Off, the listener is not there at
 * all, so an untraced statement costs what it did before.
 */
public class GuardedDataSource implements BeanPostProcessor {

    private final ObjectProvider<DomainObservations> observations;

    public GuardedDataSource(ObjectProvider<DomainObservations> observations) {
        this.observations = observations;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DataSource dataSource && !(bean instanceof ProxyDataSource)
                && !(bean instanceof ReplicaRoutingDataSource)) {
            ProxyDataSourceBuilder proxy = ProxyDataSourceBuilder.create(dataSource)
                    .name(beanName)
                    .methodListener(new DeadlineJdbcListener());
            DomainObservations tracing = observations.getIfAvailable(DomainObservations::off);
            if (tracing.enabled()) {
                DataSourceObservationListener spans = new DataSourceObservationListener(tracing::registry);
                // Connections and statements; a span per result set would only repeat its statement's.
                spans.setSupportedTypes(Set.of(JdbcObservationDocumentation.CONNECTION, JdbcObservationDocumentation.QUERY));
                proxy.listener(spans).methodListener(spans);
            }
            return proxy.build();
        }
        return bean;
    }
}
