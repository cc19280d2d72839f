package dev.tandem.grpc.auth;

import dev.tandem.auth.DevTokens;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With management.server.port set apart from server.port (MANAGEMENT_SERVER_PORT, as README "TLS"
 * suggests to narrow the actuator), Boot serves the actuator from a child context whose servlet
 * container does not get the application's filters: the flush must need a token there too.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.grpc.server.port=0", "management.server.port=0"})
@UseTestDatabase
class SeparateManagementPortAuthTest {

    @LocalManagementPort int managementPort;

    @Test
    void theCacheFlushNeedsAWriteTokenOnASeparateManagementPort() throws Exception {
        HttpResponse<String> refused = deleteCache(null);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"tandem\"");
        assertThat(refused.body()).contains("\"code\":\"UNAUTHENTICATED\"");
        assertThat(deleteCache("Bearer " + DevTokens.devWriter()).statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> deleteCache(String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/actuator/cache"))
                .timeout(Duration.ofSeconds(60)).DELETE();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
