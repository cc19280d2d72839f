package dev.tandem.auth;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;

import java.time.Clock;

/**
 * Write auth for both wires: the {@link WriteAccess} check itself, and, in a servlet application,
 * the filter that applies it to every HTTP write (the REST API, and /actuator/cache on either
 * service). The gRPC service adds its own interceptor around the same check.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AuthProperties.class)
public class AuthConfiguration {

    /** Before everything else that could act on a request (Boot's filters start at -105). */
    static final int FILTER_ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    @Bean
    WriteAccess writeAccess(AuthProperties properties, Clock clock) {
        return new WriteAccess(properties, clock);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class ServletWriteAccess {

        @Bean
        FilterRegistrationBean<WriteAccessFilter> writeAccessFilter(WriteAccess writeAccess,
                @Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
            return registration(writeAccess, exceptionResolver);
        }
    }

    static FilterRegistrationBean<WriteAccessFilter> registration(WriteAccess writeAccess,
            ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
        FilterRegistrationBean<WriteAccessFilter> registration =
                new FilterRegistrationBean<>(new WriteAccessFilter(writeAccess, exceptionResolver));
        registration.setName("writeAccessFilter");
        registration.setOrder(FILTER_ORDER);
        return registration;
    }
}
