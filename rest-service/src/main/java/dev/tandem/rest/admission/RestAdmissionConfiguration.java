package dev.tandem.rest.admission;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.rest.group.GroupEventsController;
import dev.tandem.rest.server.ActuatorPaths;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Puts {@link AdmissionValve} in front of the servlet filters, when admission control is on. */
// Not when the jar runs without a web server (make seed, the bench's seeding).
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Configuration(proxyBeanMethods = false)
public class RestAdmissionConfiguration {

    @Bean
    TomcatContextCustomizer admissionValve(AdmissionControl admission, ActuatorPaths actuator) {
        // Off: no valve at all, so an unlimited request pays nothing for the feature.
        return context -> {
            if (admission.enabled()) {
                context.getPipeline().addValve(new AdmissionValve(admission, actuator, GroupEventsController.STREAMS));
            }
        };
    }
}
