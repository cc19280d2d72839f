package dev.tandem;

import dev.tandem.config.TandemDomainConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** The domain alone, wired exactly as the services wire it, for the shared-domain tests. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(TandemDomainConfiguration.class)
public class DomainTestApplication {
}
