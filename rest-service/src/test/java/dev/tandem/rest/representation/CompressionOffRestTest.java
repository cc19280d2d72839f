package dev.tandem.rest.representation;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tandem.compression.enabled=false} (TANDEM_COMPRESSION_ENABLED) turns gzip off on the REST
 * wire as README promises: Tomcat's compression follows it, so a large page asked for with
 * {@code Accept-Encoding: gzip} goes as it is, with its length.
 */
@TestPropertySource(properties = "tandem.compression.enabled=false")
class CompressionOffRestTest extends RestIntegrationTest {

    @LocalServerPort int port;

    @Test
    void aClientThatAcceptsGzipGetsIdentity() throws Exception {
        HttpResponse<byte[]> page;
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            page = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/groups?page_size=50"))
                    .timeout(Duration.ofSeconds(60)).header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
        }
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body().length).isGreaterThan(1024);
        assertThat(page.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(page.headers().firstValueAsLong("Content-Length")).hasValue(page.body().length);
        assertThat(json.readTree(page.body()).get("groups").size()).isEqualTo(50);
    }
}
