package dev.tandem.rest;

import dev.tandem.config.TandemDomainConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * tandem.v1.StudyGroupService over REST/JSON. Everything domain-specific comes from the shared
 * domain through its one wiring; this application only adds the HTTP edge.
 */
@SpringBootApplication
@Import(TandemDomainConfiguration.class)
public class RestApplication {

    public static void main(String[] args) {
        SpringApplication.run(RestApplication.class, args);
    }
}
