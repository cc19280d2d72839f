package dev.tandem.rest.server;

import dev.tandem.auth.DevTokens;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.TestCertificate;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.net.ssl.SSLHandshakeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The REST service with TLS on (tandem.tls.*), a certificate made by scripts/tls-cert.sh, and real
 * handshakes from a client that trusts only that certificate: HTTPS (HTTP/1.1 over TLS) on the API
 * port, and a plaintext client turned away without harming the server.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "tandem.tls.enabled=true")
@UseTestDatabase
class TlsRestTest {

    /** Not a timing assertion: only a bound so that a hung request fails the test instead of the build. */
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final TestCertificate CERTIFICATE = TestCertificate.generate();

    @DynamicPropertySource
    static void certificate(DynamicPropertyRegistry registry) {
        CERTIFICATE.registerAsTandemTls(registry);
    }

    @LocalServerPort int port;
    @Autowired SeedData seed;

    @BeforeEach
    void resetData() {
        seed.reset(1);
    }

    @Test
    void readsAnswerOverHttpsWithHttp11() throws Exception {
        HttpResponse<String> response = send(trustingClient(), HttpRequest.newBuilder(https("/api/v1/groups/1")).GET());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(response.body()).startsWith("{\"id\":1,");
        assertThat(response.sslSession()).hasValueSatisfying(session ->
                assertThat(session.getProtocol()).startsWith("TLSv1."));
    }

    @Test
    void writesWithTheBearerTokenAnswerOverHttps() throws Exception {
        HttpResponse<String> response = send(trustingClient(), HttpRequest.newBuilder(https("/api/v1/users"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + DevTokens.devWriter())
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Tls Ada\",\"email\":\"tls.ada@example.test\"}")));

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).contains("tls.ada@example.test");
    }

    @Test
    void actuatorHealthIsServedOverHttpsToo() throws Exception {
        HttpResponse<String> response = send(trustingClient(), HttpRequest.newBuilder(https("/actuator/health")).GET());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"");
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateIsRefusedInTheHandshake() {
        HttpClient defaultTrust = HttpClient.newBuilder().connectTimeout(BOUND).build();
        assertThatThrownBy(() -> send(defaultTrust, HttpRequest.newBuilder(https("/api/v1/groups/1")).GET()))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void plaintextHttpToTheTlsPortFailsCleanlyAndTheServerKeepsServing() throws Exception {
        HttpClient plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(BOUND).build();
        // Tomcat answers plaintext on a TLS port with a plain 400 that says TLS is required;
        // never a response from the API.
        HttpResponse<String> response = send(plain, HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/api/v1/groups/1")).GET());
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("TLS").doesNotContain("\"id\"");

        HttpResponse<String> after = send(trustingClient(), HttpRequest.newBuilder(https("/api/v1/groups/2")).GET());
        assertThat(after.statusCode()).isEqualTo(200);
    }

    private URI https(String path) {
        // 127.0.0.1, not localhost: the certificate names both, and this proves the IP SAN
        return URI.create("https://127.0.0.1:" + port + path);
    }

    private static HttpClient trustingClient() {
        return HttpClient.newBuilder().sslContext(CERTIFICATE.clientContext()).connectTimeout(BOUND).build();
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest.Builder request) throws Exception {
        try (client) {
            return client.send(request.timeout(BOUND).build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
