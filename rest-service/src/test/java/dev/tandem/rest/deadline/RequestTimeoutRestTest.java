package dev.tandem.rest.deadline;

import dev.tandem.testsupport.SeededRows;
import dev.tandem.deadline.RequestDeadlines;
import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.RowLock;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The REST request timeout cuts the database work short: a write that waits for a row lock held
 * by the test's own connection is answered 504 DEADLINE_EXCEEDED at the timeout, its statement is
 * gone from MariaDB's process list at once (not left waiting up to innodb_lock_wait_timeout, 50 s),
 * and once the lock is released the write turns out not to have been applied.
 */
class RequestTimeoutRestTest extends RestIntegrationTest {

    /** Well below the server's request timeout and the lock wait timeout: a statement still there after this was left running. */
    private static final Duration GONE_WITHIN = Duration.ofSeconds(5);

    /**
     * The requests' timeout: long enough that on a loaded machine the request's statement is seen
     * waiting for the lock before it passes, short enough to keep the test quick.
     */
    private static final Duration TIMEOUT = Duration.ofMillis(2000);
    /**
     * Seen waiting, then gone while the test still holds the lock: only a KILL ends a lock wait that
     * early. (Until this, a rise in the server's Com_kill stood for that; it counts every database's
     * KILLs, so another test lane's could have made the assertion pass on its own.)
     */
    private static final String RUNNING_WHEN_CUT = "the request's statement waits for the lock before the timeout";

    @Value("${spring.datasource.url}") String url;
    @Value("${spring.datasource.username}") String user;
    @Value("${spring.datasource.password}") String password;
    @Autowired RequestDeadlines deadlines;

    @Test
    void updateWaitingForALockedGroupIsCutShortByTheRequestTimeout() throws Exception {
        assertThat(deadlines.requestTimeout()).as("the server's own cap must not be what cuts the statement")
                .isGreaterThan(GONE_WITHIN);
        Map<String, Object> before = SeededRows.groupRow(jdbc, 1);
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            CompletableFuture<RestTestClient.ResponseSpec> response = CompletableFuture.supplyAsync(() ->
                    http.patch().uri("/api/v1/groups/{id}", 1)
                            .header(RequestTimeout.HEADER, Long.toString(TIMEOUT.toMillis()))
                            .contentType(MediaType.APPLICATION_JSON)
                            .body("""
                                    {"group":{"name":"Renamed under a lock"},"updateMask":"name","expectedVersion":%d}"""
                                    .formatted(((Number) before.get("version")).longValue()))
                            .exchange());
            assertThat(lock.awaitLockingReadOfStudyGroups(TIMEOUT)).as(RUNNING_WHEN_CUT).isTrue();

            expectProblem(response.get(30, TimeUnit.SECONDS), HttpStatus.GATEWAY_TIMEOUT, "DEADLINE_EXCEEDED");
            assertThat(lock.awaitNoStatementOnStudyGroups(GONE_WITHIN))
                    .as("the service's UPDATE/SELECT ... FOR UPDATE is no longer running").isTrue();
        }
        assertThat(SeededRows.groupRow(jdbc, 1)).as("the timed-out update was rolled back").isEqualTo(before);
    }

    @Test
    void joinWaitingForALockedGroupIsCutShortAndNotApplied() throws Exception {
        long groupId = SeededRows.groupWithRoom(jdbc);
        long userId = SeededRows.nonMember(jdbc, groupId);
        var rows = allRows();
        try (RowLock lock = RowLock.studyGroup(url, user, password, groupId)) {
            CompletableFuture<RestTestClient.ResponseSpec> response = CompletableFuture.supplyAsync(() ->
                    http.post().uri("/api/v1/groups/{id}/members", groupId)
                            .header(RequestTimeout.HEADER, Long.toString(TIMEOUT.toMillis()))
                            .contentType(MediaType.APPLICATION_JSON)
                            .body("{\"userId\":" + userId + "}")
                            .exchange());
            assertThat(lock.awaitLockingReadOfStudyGroups(TIMEOUT)).as(RUNNING_WHEN_CUT).isTrue();

            expectProblem(response.get(30, TimeUnit.SECONDS), HttpStatus.GATEWAY_TIMEOUT, "DEADLINE_EXCEEDED");
            assertThat(lock.awaitNoStatementOnStudyGroups(GONE_WITHIN)).isTrue();
        }
        assertThat(SeededRows.isMember(jdbc, groupId, userId)).as("the timed-out join was not applied").isFalse();
        assertThat(allRows()).isEqualTo(rows);
    }

    @Test
    void aZeroTimeoutIsAClientErrorThatTouchesNothing() {
        long groupId = SeededRows.groupWithRoom(jdbc);
        long userId = SeededRows.nonMember(jdbc, groupId);
        var rows = allRows();

        RestTestClient.ResponseSpec response = http.post().uri("/api/v1/groups/{id}/members", groupId)
                .header(RequestTimeout.HEADER, "0")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"userId\":" + userId + "}")
                .exchange();

        // The client's own mistake, not a deadline the server missed: 400 naming the header, never a 5xx.
        expectInvalid(response, RequestTimeout.HEADER);
        assertThat(SeededRows.isMember(jdbc, groupId, userId)).isFalse();
        assertThat(allRows()).isEqualTo(rows);
    }

    @Test
    void aMalformedTimeoutIsAClientError() {
        for (String bad : List.of("0", "00", "-0", "-5", "soon", "1.5", "1e3", "0x10", "", " ",
                "1000000000", "10000000000", "99999999999999999999999999")) {
            expectInvalid(http.get().uri("/api/v1/groups/1").header(RequestTimeout.HEADER, bad).exchange(),
                    RequestTimeout.HEADER)
                    .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains(RequestTimeout.HEADER));
        }
    }

    /** What the OpenAPI fuzzer found: X-Request-Timeout: 0 answered 504 on every operation, OPTIONS included. */
    @Test
    void aTimeoutThatIsNotPositiveIsAClientErrorOnEveryMethod() {
        var rows = allRows();
        for (String bad : List.of("0", "-1")) {
            expectInvalid(http.get().uri("/api/v1/groups").header(RequestTimeout.HEADER, bad).exchange(),
                    RequestTimeout.HEADER);
            expectInvalid(http.post().uri("/api/v1/users").header(RequestTimeout.HEADER, bad)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body("{\"name\":\"Zero\",\"email\":\"zero@example.test\"}").exchange(), RequestTimeout.HEADER);
            expectInvalid(http.patch().uri("/api/v1/groups/1").header(RequestTimeout.HEADER, bad)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body("{\"group\":{\"name\":\"Zero\"},\"updateMask\":\"name\"}").exchange(), RequestTimeout.HEADER);
            expectInvalid(http.delete().uri("/api/v1/groups/1?expected_version=0").header(RequestTimeout.HEADER, bad)
                    .exchange(), RequestTimeout.HEADER);
            for (String uri : List.of("/api/v1/groups/1", "/api/v1/groups", "/api/v1/groups/1/members/2")) {
                expectInvalid(http.options().uri(uri).header(RequestTimeout.HEADER, bad).exchange(),
                        RequestTimeout.HEADER);
            }
            http.head().uri("/api/v1/groups/1").header(RequestTimeout.HEADER, bad).exchange()
                    .expectStatus().isBadRequest()
                    .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON);
        }
        assertThat(allRows()).as("nothing was written").isEqualTo(rows);
    }

    @Test
    void theSmallestPositiveTimeoutIsAccepted() {
        // 1 ms may well pass before the database answers: then it is the server's 504, never a 400.
        RestTestClient.ResponseSpec response = http.get().uri("/api/v1/groups/1").header(RequestTimeout.HEADER, "1")
                .exchange();
        response.expectStatus().value(status -> assertThat(status).isIn(200, 504));
        http.get().uri("/api/v1/groups/1").header(RequestTimeout.HEADER, "999999999").exchange()
                .expectStatus().isOk();
    }

    @Test
    void aGenerousTimeoutChangesNothing() {
        http.get().uri("/api/v1/groups/1").header(RequestTimeout.HEADER, "30000").exchange()
                .expectStatus().isOk();
    }

    @Test
    void theTimeoutHeaderIsDocumentedOnEveryOperation() {
        String createGroup = readJson("/v3/api-docs").at("/paths/~1api~1v1~1groups/post/parameters").toString();
        assertThat(createGroup).contains("\"name\":\"" + RequestTimeout.HEADER + "\"", "\"in\":\"header\"",
                "\"minimum\":1", "\"maximum\":" + RequestTimeout.MAX_MILLIS);
    }
}
