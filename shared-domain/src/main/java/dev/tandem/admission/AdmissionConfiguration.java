package dev.tandem.admission;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The one {@link AdmissionControl} of an instance; each wire puts it where its requests enter. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AdmissionProperties.class)
public class AdmissionConfiguration {

    @Bean
    AdmissionControl admissionControl(AdmissionProperties properties, ObjectProvider<MeterRegistry> meters) {
        // The services' actuator registry; the domain alone (tests, make seed) keeps its meters locally.
        return new AdmissionControl(properties, meters.getIfAvailable(SimpleMeterRegistry::new));
    }
}
