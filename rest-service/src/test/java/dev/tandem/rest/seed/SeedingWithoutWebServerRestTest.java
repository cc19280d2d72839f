package dev.tandem.rest.seed;

import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.web.bind.support.ConfigurableWebBindingInitializer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * scripts/seed.sh (and so make run on an empty database, make bench and the compose file's seed
 * job) runs this jar with {@code spring.main.web-application-type=none}: the REST service's own
 * configuration must start without Spring MVC. A binding initializer that asked for MVC's
 * conversion service once stopped that start, which only the README test noticed.
 */
@SpringBootTest(properties = "spring.main.web-application-type=none")
@UseTestDatabase
class SeedingWithoutWebServerRestTest {

    @Autowired
    ApplicationContext context;

    @Test
    void theServiceStartsWithoutAWebServerAsTheSeedingRunStartsIt() {
        assertThat(context.getBeansOfType(ConfigurableWebBindingInitializer.class)).isEmpty();
    }
}
