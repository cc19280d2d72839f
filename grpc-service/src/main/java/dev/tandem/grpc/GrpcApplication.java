package dev.tandem.grpc;

import dev.tandem.config.SigtermExit;
import dev.tandem.config.TandemDomainConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * The gRPC wire of Tandem: tandem.v1.StudyGroupService on 9090, actuator on 8081. Everything
 * domain-specific comes from the imported domain configuration, the same one rest-service uses.
 */
@SpringBootApplication
@Import(TandemDomainConfiguration.class)
public class GrpcApplication {

    public static void main(String[] args) {
        SigtermExit.exitZeroOnSigterm();
        SpringApplication.run(GrpcApplication.class, args);
    }
}
