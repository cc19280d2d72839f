package dev.tandem.rest.server;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.auth.DevTokens;
import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.TestPropertySource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator moved to the root (management.endpoints.web.base-path=/, Boot's way of serving
 * /health): the rate limit and admission control still leave it alone and still limit the API. Failed
 * before, when both read the base path as text: the rate limit refused the health probes (429 at the
 * fourth) and admission control took every path for the actuator's and counted no API request.
 */
@TestPropertySource(properties = {"management.endpoints.web.base-path=/",
        "tandem.admission.enabled=true",
        "tandem.rate-limit.enabled=true", "tandem.rate-limit.requests-per-second=0.001", "tandem.rate-limit.burst=3"})
class ActuatorAtTheRootRestTest extends RestIntegrationTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @Autowired AdmissionControl admission;

    @Test
    void theActuatorAtTheRootIsNeitherRateLimitedNorAdmittedWhileTheApiIsBoth() {
        long completed = admission.ended(AdmissionControl.Ending.COMPLETED);
        String token = DevTokens.mintFor("api-client-" + System.nanoTime(), DevTokens.DEV_SECRET, Duration.ofHours(1));
        for (int i = 0; i < 4; i++) {
            anonymous.get().uri("/api/v1/groups/{id}", 2).header(HttpHeaders.AUTHORIZATION, bearer(token)).exchange()
                    .expectStatus().isEqualTo(i < 3 ? HttpStatus.OK : HttpStatus.TOO_MANY_REQUESTS);
            Await.until("the permit back", BOUND, () -> admission.inFlight() == 0);
        }
        assertThat(admission.ended(AdmissionControl.Ending.COMPLETED) - completed).as("API requests admitted").isEqualTo(4);

        // more than a burst, from the test's own address
        for (int i = 0; i < 5; i++) {
            anonymous.get().uri("/health").exchange().expectStatus().isOk();
        }
    }
}
