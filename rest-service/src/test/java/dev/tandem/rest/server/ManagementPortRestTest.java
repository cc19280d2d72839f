package dev.tandem.rest.server;

import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.HeldCarriers;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * With the actuator on a port of its own ({@code MANAGEMENT_SERVER_PORT}), probes and metrics are
 * served while the requests' virtual threads wait for a carrier, as on an instance whose CPU the
 * requests have saturated (#17: health and metrics are never starved by request load). Failed
 * before: the management port's Tomcat ran on virtual threads too, and no probe was answered.
 */
@TestPropertySource(properties = "management.server.port=0")
class ManagementPortRestTest extends RestIntegrationTest {

    /** Not a speed: the bound after which an unanswered probe fails the test instead of hanging it. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    @LocalServerPort int apiPort;
    @LocalManagementPort int managementPort;

    @Test
    void probesAndMetricsAreAnsweredWhileEveryCarrierIsHeld() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        try (HeldCarriers ignored = HeldCarriers.hold()) {
            // The hold starves what runs on virtual threads: the API's requests are never run while it lasts.
            assertThatThrownBy(() -> client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort
                    + "/api/v1/groups/2")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(HttpTimeoutException.class);

            for (String path : List.of("/actuator/health/liveness", "/actuator/health/readiness", "/actuator/prometheus")) {
                HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + managementPort + path)).timeout(BOUND).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as(path).isEqualTo(200);
            }
        }
        get("/api/v1/groups/{id}", 2).expectStatus().isOk();
    }
}
