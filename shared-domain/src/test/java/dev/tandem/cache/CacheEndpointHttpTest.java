package dev.tandem.cache;

import dev.tandem.auth.DevTokens;
import dev.tandem.group.GroupService;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint as the services publish it on their management port (with "cache" in
 * management.endpoints.web.exposure.include): GET for the counters, POST or DELETE to flush, both
 * with an optional counter reset, and /actuator/prometheus carrying tandem_cache_* series.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "management.endpoints.web.exposure.include=cache,prometheus", "server.address=127.0.0.1"})
@UseTestDatabase
class CacheEndpointHttpTest {

    @LocalServerPort int port;
    @Autowired GroupService groups;
    @Autowired SeedData seed;
    @Autowired TieredCache cache;

    private static final String WRITER = "Bearer " + DevTokens.devWriter();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void getPostAndDeleteOverHttp() throws Exception {
        seed.reset(1);
        // A context that has just started serves L1 once its log follower has read the log through.
        assertThat(Await.within(java.time.Duration.ofSeconds(30), cache::l1Trusted)).isTrue();
        groups.get(1);

        // A flush is a write: without a token it is refused and changes nothing.
        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(uri("/actuator/cache?resetCounters=true"))
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"tandem\"");

        HttpResponse<String> flushed = http.send(HttpRequest.newBuilder(uri("/actuator/cache"))
                        .header("Content-Type", "application/json").header("Authorization", WRITER)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"resetCounters\": true}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(flushed.statusCode()).isEqualTo(200);
        assertThat(flushed.body()).contains("\"mode\":\"hybrid\"").contains("\"l1\":{\"hits\":0,\"misses\":0,\"hitRatio\":0.0}");

        // Again just before the reads: on a loaded machine a pass can come later than the staleness
        // bound, and L1 is then bypassed (correctly) until the next one; the counts below are of a
        // trusted L1 (make test once saw "bypasses":1 and two misses here).
        assertThat(Await.within(java.time.Duration.ofSeconds(30), cache::l1Trusted)).isTrue();
        groups.get(1);
        groups.get(1);
        HttpResponse<String> status = http.send(HttpRequest.newBuilder(uri("/actuator/cache")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"group\":{\"l1\":{\"hits\":1,\"misses\":1,\"hitRatio\":0.5}");

        HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(uri("/actuator/cache?resetCounters=true"))
                .header("Authorization", WRITER).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(deleted.body()).contains("\"group\":{\"l1\":{\"hits\":0,\"misses\":0");

        HttpResponse<String> prometheus = http.send(HttpRequest.newBuilder(uri("/actuator/prometheus")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(prometheus.body()).contains("tandem_cache_gets_total{cache=\"group\",level=\"l1\",result=\"hit\"}")
                .contains("tandem_cache_invalidation_lag_seconds_bucket");
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
