package dev.tandem.rest;

import dev.tandem.config.SigtermExit;
import dev.tandem.config.TandemDomainConfiguration;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * tandem.v1.StudyGroupService over REST/JSON. Everything domain-specific comes from the shared
 * domain through its one wiring; this application only adds the HTTP edge.
 */
@SpringBootApplication
@Import(TandemDomainConfiguration.class)
public class RestApplication {

    public static void main(String[] args) {
        SigtermExit.exitZeroOnSigterm();
        SpringApplication.run(RestApplication.class, args);
    }

    /** The title of /v3/api-docs; the operations are found by springdoc from the controllers. */
    @Bean
    OpenAPI tandemOpenApi() {
        return new OpenAPI().info(new Info()
                .title("Tandem StudyGroupService (REST/JSON)")
                .version("v1")
                .description("tandem.v1.StudyGroupService on the routes of its google.api.http annotations. "
                        + "JSON field names are the proto fields in lowerCamelCase; errors are RFC 9457 "
                        + "problem+json carrying the gRPC status name in `code`."));
    }
}
