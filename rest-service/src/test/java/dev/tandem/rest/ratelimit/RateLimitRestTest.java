package dev.tandem.rest.ratelimit;

import dev.tandem.ratelimit.ClientRateLimiter;
import dev.tandem.ratelimit.RateLimitScenarios;
import dev.tandem.rest.RestIntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import tools.jackson.databind.JsonNode;

import java.util.OptionalLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimitScenarios} on REST: a refusal is 429 problem+json with code RESOURCE_EXHAUSTED,
 * the limit in {@code metadata}, {@code Retry-After} in whole seconds, and one more
 * {@code tandem.ratelimit.refused{wire=rest}}.
 */
@TestPropertySource(properties = RateLimitScenarios.PROPERTIES)
class RateLimitRestTest extends RestIntegrationTest implements RateLimitScenarios.RateLimitedWire {

    @Autowired private MeterRegistry registry;

    @TestFactory
    Stream<DynamicTest> everyRateLimitScenario() {
        return RateLimitScenarios.on(this);
    }

    @Override
    public void unlimitedEndpointsAnswer() {
        for (String uri : new String[] {"/actuator/health", "/actuator/cache"}) {
            anonymous.get().uri(uri).exchange().expectStatus().isOk();
        }
        // Where operators see the refusals.
        assertThat(anonymous.get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody())
                .containsPattern("tandem_ratelimit_refused_total\\{[^}]*wire=\"rest\"[^}]*} [1-9]");
    }

    @Override
    public OptionalLong read(String authorization) {
        double refusedBefore = refused();
        EntityExchangeResult<String> answer = anonymous.get().uri("/api/v1/groups/1")
                .headers(headers -> {
                    if (authorization != null) {
                        headers.set(HttpHeaders.AUTHORIZATION, authorization);
                    }
                })
                .exchange().expectBody(String.class).returnResult();
        if (answer.getStatus().value() == HttpStatus.OK.value()) {
            assertThat(refused()).as("refusals counted").isEqualTo(refusedBefore);
            return OptionalLong.empty();
        }
        assertThat(answer.getStatus().value()).as("status of a refusal: %s", answer.getResponseBody())
                .isEqualTo(HttpStatus.TOO_MANY_REQUESTS.value());
        assertThat(answer.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        JsonNode problem = json.readTree(answer.getResponseBody());
        assertThat(problem.get("status").asInt()).isEqualTo(429);
        assertThat(problem.get("title").asString()).isEqualTo("Too Many Requests");
        assertThat(problem.get("code").asString()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(problem.get("detail").asString()).contains("too many requests");
        assertThat(problem.get("metadata").get("burst").asString()).isEqualTo(String.valueOf(RateLimitScenarios.BURST));
        assertThat(refused()).as("refusals counted").isEqualTo(refusedBefore + 1);
        String retryAfter = answer.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER);
        assertThat(retryAfter).as("Retry-After").matches("[0-9]+");
        return OptionalLong.of(Long.parseLong(retryAfter));
    }

    private double refused() {
        return registry.get(ClientRateLimiter.REFUSED_METER).tag("wire", "rest").counter().count();
    }
}
