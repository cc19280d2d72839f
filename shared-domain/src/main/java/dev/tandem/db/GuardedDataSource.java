package dev.tandem.db;

import net.ttddyy.dsproxy.support.ProxyDataSource;
import net.ttddyy.dsproxy.support.ProxyDataSourceBuilder;
import org.springframework.beans.factory.config.BeanPostProcessor;

import javax.sql.DataSource;

/**
 * Wraps the application's DataSource (Hikari) in datasource-proxy's proxy with the
 * {@link DeadlineJdbcListener}, so that every connection, statement and commit of every request
 * is held to its deadline, whichever code (Hibernate, JdbcClient) runs it. Health, metrics and
 * Flyway see the same pool through it (the proxy unwraps to Hikari). With a read replica, each of
 * the two pools is wrapped and the {@link ReplicaRoutingDataSource} over them is not: wrapping it too
 * would guard every statement twice.
 */
public class GuardedDataSource implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DataSource dataSource && !(bean instanceof ProxyDataSource)
                && !(bean instanceof ReplicaRoutingDataSource)) {
            return ProxyDataSourceBuilder.create(dataSource)
                    .name(beanName)
                    .methodListener(new DeadlineJdbcListener())
                    .build();
        }
        return bean;
    }
}
