package dev.tandem.rest.admission;

import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.RowLock;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.TestPropertySource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission control on REST with a limit of one request in flight: while an update waits for a row
 * lock held by the test, another request is refused at once with 503 problem+json and Retry-After,
 * the actuator still answers, and once the update is through requests are admitted again.
 */
@TestPropertySource(properties = {"tandem.admission.enabled=true", "tandem.admission.algorithm=fixed", "tandem.admission.initial-limit=1",
        "tandem.admission.min-limit=1", "tandem.admission.max-limit=1", "tandem.admission.retry-after=3s"})
class AdmissionRestTest extends RestIntegrationTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @Value("${spring.datasource.url}") String url;
    @Value("${spring.datasource.username}") String user;
    @Value("${spring.datasource.password}") String password;

    @Test
    void aRequestOverTheLimitIsRefusedWithRetryAfterWhileTheActuatorStillAnswers() throws Exception {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        CompletableFuture<Integer> update;
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            update = CompletableFuture.supplyAsync(() -> patch("/api/v1/groups/1", """
                    {"group":{"name":"Renamed once admitted"},"updateMask":"name","expectedVersion":%d}"""
                    .formatted(version)).returnResult().getStatus().value());
            assertThat(lock.awaitStatementOnStudyGroups(BOUND)).as("the update holds the only permit").isTrue();

            expectProblem(get("/api/v1/groups/{id}", 2), HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE")
                    .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("limit of 1 requests in flight"))
                    .jsonPath("$.metadata.limit").isEqualTo("1");
            get("/api/v1/groups/{id}", 2).expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "3");

            get("/actuator/health").expectStatus().isOk();
            assertThat(update).as("the admitted request still waits for the lock").isNotDone();
        }
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(200);
        assertThat(readJson("/api/v1/groups/{id}", 2).get("id").asText()).as("admitted again once the permit is back")
                .isEqualTo("2");
    }
}
