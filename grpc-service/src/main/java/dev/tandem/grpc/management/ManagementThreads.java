package dev.tandem.grpc.management;

import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * The management port's Tomcat (probes, metrics, the cache endpoint) serves on platform threads of
 * its own, Tomcat's pool ({@code server.tomcat.threads.*}), not on virtual threads as the calls do.
 *
 * <p>Why: a virtual thread runs only when a carrier is free, and on an instance whose CPU the calls
 * have saturated every carrier is busy, so a probe waited behind every queued call: the kubelet's
 * liveness probe (3 s) could fail and restart an instance whose only trouble was load (#17: health
 * and metrics are never starved by request load). The kernel schedules platform threads beside
 * the carriers, so a probe gets its share of the CPU however many calls wait
 * (ManagementThreadsGrpcTest). A probe blocked on MariaDB now holds a platform thread, for at most
 * {@code tandem.db.health-timeout}; the port carries nothing else.
 */
@Configuration(proxyBeanMethods = false)
class ManagementThreads {

    @Bean
    WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> managementOnPlatformThreads() {
        return new OnPlatformThreads();
    }

    /**
     * Applied after Boot's virtual-thread customizer (order 1), whose executor it takes back out: with
     * none set, Tomcat makes its own pool when it starts.
     */
    private static final class OnPlatformThreads implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered {

        @Override
        public void customize(ConfigurableTomcatWebServerFactory factory) {
            factory.addProtocolHandlerCustomizers(protocol -> protocol.setExecutor(null));
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
