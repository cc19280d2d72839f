package dev.tandem.auth;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * The write filter on a management port of its own (management.server.port set and different from
 * server.port): Boot then serves the actuator from a child context whose servlet container does not
 * get the application's filters, so without this DELETE /actuator/cache would be open there.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class ManagementWriteAccess {

    @Bean
    FilterRegistrationBean<WriteAccessFilter> managementWriteAccessFilter(WriteAccess writeAccess,
            @Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
        return AuthConfiguration.registration(writeAccess, exceptionResolver);
    }
}
