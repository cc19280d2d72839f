package dev.tandem.rest;

import dev.tandem.auth.DevTokens;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.SeedResets;
import dev.tandem.testsupport.SeededRows;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole service as it runs: Tomcat on a random port, real HTTP from the client side, and the
 * real MariaDB (database {@code tandem_test_rest}) reset to seed scale 1 before every test (unless
 * the test before it proved it changed nothing: {@link SeedResets}). Every subclass has the
 * same configuration, so they all share one application context.
 */
// Watches: heartbeats often and limits low enough to reach, one client's below the instance's (GroupEventsRestTest).
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"tandem.watch.heartbeat=500ms", "tandem.watch.max-watchers=4", "tandem.watch.max-watchers-per-client=3"})
@AutoConfigureRestTestClient
@UseTestDatabase
@Import(TestRoutes.class)
public abstract class RestIntegrationTest {

    /** The same client without any Authorization header: for the tests of write auth itself. */
    @Autowired protected RestTestClient anonymous;
    /** Every request sends a writer's bearer token (writes need one, reads ignore it). */
    protected RestTestClient http;
    @Autowired protected SeedData seed;
    @Autowired protected JdbcClient jdbc;
    @Autowired protected JsonMapper json;

    @BeforeEach
    void resetData() {
        SeedResets.beforeEach(seed, getClass());
        http = anonymous.mutate().defaultHeader(HttpHeaders.AUTHORIZATION, bearer(WRITER)).build();
    }

    /** A write token signed with the development secret, which the service under test verifies with. */
    protected static final String WRITER = DevTokens.devWriter();

    protected static String bearer(String token) {
        return "Bearer " + token;
    }

    // ---- requests ------------------------------------------------------------------------------

    protected RestTestClient.ResponseSpec get(String uri, Object... variables) {
        return http.get().uri(uri, variables).exchange();
    }

    protected RestTestClient.ResponseSpec post(String uri, String body, Object... variables) {
        return http.post().uri(uri, variables).contentType(MediaType.APPLICATION_JSON).body(body).exchange();
    }

    protected RestTestClient.ResponseSpec patch(String uri, String body, Object... variables) {
        return http.patch().uri(uri, variables).contentType(MediaType.APPLICATION_JSON).body(body).exchange();
    }

    protected RestTestClient.ResponseSpec delete(String uri, Object... variables) {
        return http.delete().uri(uri, variables).exchange();
    }

    /** The body of a GET that must answer 200, exactly as sent: for "nothing changed" comparisons. */
    protected String read(String uri, Object... variables) {
        return get(uri, variables).expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult().getResponseBody();
    }

    protected JsonNode readJson(String uri, Object... variables) {
        return json.readTree(read(uri, variables));
    }

    protected JsonNode bodyOf(RestTestClient.ResponseSpec response) {
        return json.readTree(response.expectBody(String.class).returnResult().getResponseBody());
    }

    // ---- assertions ----------------------------------------------------------------------------

    /** A problem+json answer with this status and gRPC code, and the members every problem has. */
    protected RestTestClient.BodyContentSpec expectProblem(RestTestClient.ResponseSpec response, HttpStatus status,
                                                           String code) {
        return response.expectStatus().isEqualTo(status.value())
                .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.status").isEqualTo(status.value())
                .jsonPath("$.code").isEqualTo(code)
                .jsonPath("$.title").isNotEmpty()
                .jsonPath("$.detail").isNotEmpty();
    }

    /** 400 INVALID_ARGUMENT whose field violations name exactly these fields (each at least once). */
    protected RestTestClient.BodyContentSpec expectInvalid(RestTestClient.ResponseSpec response, String... fields) {
        return expectProblem(response, HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT")
                .jsonPath("$.fieldViolations[*].field").value((List<String> named) ->
                        assertThat(named).as("fieldViolations[].field").containsOnly(fields))
                .jsonPath("$.fieldViolations[*].description").value((List<String> descriptions) ->
                        assertThat(descriptions).allSatisfy(d -> assertThat(d).isNotBlank()));
    }

    // ---- the database --------------------------------------------------------------------------

    protected long count(String table) {
        return jdbc.sql("SELECT COUNT(*) FROM " + table).query(Long.class).single();
    }

    /**
     * Every row of every table ({@link SeededRows#database}), to show that a rejected write changed
     * nothing: row counts alone would miss a rejected write that changed a row in place.
     */
    protected Map<String, List<Map<String, Object>>> allRows() {
        return SeededRows.database(jdbc);
    }

    protected long memberCount(long groupId) {
        return jdbc.sql("SELECT COUNT(*) FROM group_members WHERE group_id = ?").param(groupId).query(Long.class).single();
    }

    protected static String repeat(char c, int times) {
        return String.valueOf(c).repeat(times);
    }
}
