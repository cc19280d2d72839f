package dev.tandem.management;

import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * A management port's Tomcat (probes, metrics, the cache endpoint) serves on platform threads of its
 * own, Tomcat's pool ({@code server.tomcat.threads.*}), not on virtual threads as the requests do:
 * the gRPC service's servlet server (8081, which serves nothing else), and either service's
 * separate management port when {@code MANAGEMENT_SERVER_PORT} asks for one (this class, in that
 * port's child context).
 *
 * <p>Why: a virtual thread runs only when a carrier is free, and on an instance whose CPU the requests
 * have saturated every carrier is busy, so a probe waited behind every queued request: the kubelet's
 * liveness probe (3 s) could fail and restart an instance whose only trouble was load (#17: health
 * and metrics are never starved by request load). The kernel schedules platform threads beside the
 * carriers, so a probe gets its share of the CPU however many requests wait (ManagementThreadsGrpcTest,
 * ManagementPortRestTest). A probe blocked on MariaDB holds a platform thread, for at most
 * {@code tandem.db.health-timeout}; the port carries nothing else. REST's actuator on the API port
 * shares the requests' threads and is starved with them (README, "Under overload").
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class ManagementThreads {

    @Bean
    WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> managementPortOnPlatformThreads() {
        return onPlatformThreads();
    }

    /** For a context whose Tomcat serves only the actuator. */
    public static WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> onPlatformThreads() {
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
