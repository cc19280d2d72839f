package dev.tandem.rest.server;

import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.TlsExtraPort;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * tandem.tls.extra-port: the API port stays plain HTTP and a second port serves the same API over
 * HTTPS from the same process (what the bench's TLS cells use), configured like the main connector.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@UseTestDatabase
class TlsExtraPortRestTest {

    /** Not a timing assertion: only a bound so that a hung request fails the test instead of the build. */
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final TlsExtraPort TLS = TlsExtraPort.pick();

    @DynamicPropertySource
    static void tlsOnTheExtraPort(DynamicPropertyRegistry registry) {
        TLS.register(registry);
    }

    @LocalServerPort int plainPort;
    @Autowired SeedData seed;

    @BeforeEach
    void resetData() {
        seed.reset(1);
    }

    @Test
    void bothPortsServeTheSameApiThePlainOneInTheClearTheExtraOneOverTls() throws Exception {
        HttpResponse<String> plain = send(HttpClient.newBuilder().connectTimeout(BOUND).build(),
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plainPort + "/api/v1/groups/1")).GET());
        HttpResponse<String> tls = send(trustingClient(), HttpRequest.newBuilder(TLS.https("/api/v1/groups/1")).GET());

        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.sslSession()).isEmpty();
        assertThat(tls.statusCode()).isEqualTo(200);
        assertThat(tls.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(tls.sslSession()).hasValueSatisfying(session -> assertThat(session.getProtocol()).startsWith("TLSv1."));
        assertThat(tls.body()).isEqualTo(plain.body());
    }

    @Test
    void theExtraPortRefusesPlaintextAndKeepsServing() throws Exception {
        HttpResponse<String> response = send(HttpClient.newBuilder().connectTimeout(BOUND).build(),
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + TLS.port() + "/api/v1/groups/1")).GET());
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("TLS").doesNotContain("\"id\"");

        assertThat(send(trustingClient(), HttpRequest.newBuilder(TLS.https("/api/v1/groups/2")).GET()).statusCode())
                .isEqualTo(200);
    }

    @Test
    void theExtraPortHasTheMainConnectorsLimits() throws Exception {
        // server.max-http-request-header-size (8KB) reaches Tomcat through Boot's connector
        // customizers: a twin built without them would accept this request.
        HttpResponse<String> response = send(trustingClient(), HttpRequest.newBuilder(TLS.https("/api/v1/groups/1"))
                .header("X-Padding", "x".repeat(16 * 1024)).GET());
        assertThat(response.statusCode()).isIn(400, 431);
        assertThat(response.body()).doesNotContain("\"id\"");
    }

    @Test
    void theActuatorIsServedOnTheExtraPortToo() throws Exception {
        HttpResponse<String> response = send(trustingClient(), HttpRequest.newBuilder(TLS.https("/actuator/health")).GET());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"");
    }

    private static HttpClient trustingClient() {
        return TLS.trustingClient().connectTimeout(BOUND).build();
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest.Builder request) throws Exception {
        try (client) {
            return client.send(request.timeout(BOUND).build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
