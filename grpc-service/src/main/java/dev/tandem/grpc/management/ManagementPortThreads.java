package dev.tandem.grpc.management;

import dev.tandem.management.ManagementThreads;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * This service's servlet server is its management port (8081: the API is gRPC), so its Tomcat runs
 * on platform threads ({@link ManagementThreads}): probes are answered while calls wait for a carrier.
 */
@Configuration(proxyBeanMethods = false)
class ManagementPortThreads {

    @Bean
    WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> managementOnPlatformThreads() {
        return ManagementThreads.onPlatformThreads();
    }
}
