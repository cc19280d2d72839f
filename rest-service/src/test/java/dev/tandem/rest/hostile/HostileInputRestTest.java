package dev.tandem.rest.hostile;

import dev.tandem.testsupport.Http1Response;
import dev.tandem.testsupport.SeedResets;
import dev.tandem.testsupport.SeededRows;
import dev.tandem.auth.DevTokens;
import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.rest.hostile.HostileRestRequests.Expect;
import dev.tandem.rest.hostile.HostileRestRequests.Hostile;
import dev.tandem.rest.hostile.RawHttp.Framing;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import dev.tandem.deadline.RequestDeadlines;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile input on every endpoint (the table is {@link HostileRestRequests}): oversized, deep and
 * huge bodies, bytes that are not UTF-8 in the body, the path and the query, numbers out of range,
 * wrong JSON types, missing, null, unknown and duplicate fields, bogus page tokens, oversized
 * request lines and headers, wrong content types. Each request goes over a raw socket exactly as
 * written, and each must get a 4xx problem+json with the expected code (also where Tomcat refuses
 * the request before Spring sees it: TomcatProblems), must leave every table exactly as it was, and
 * must leave the service healthy.
 */
class HostileInputRestTest extends RestIntegrationTest {

    @LocalServerPort int port;
    @Autowired RequestDeadlines deadlines;

    /** The values of the placeholders in {@link RestOperation}'s targets and bodies. */
    private Map<String, String> placeholders;

    @BeforeEach
    void findTheSeededRowsTheRequestsActOn() {
        SeededRows.WriteTargets targets = SeededRows.WriteTargets.find(jdbc);
        placeholders = Map.of("%GROUP%", String.valueOf(targets.group()), "%MEMBER%", String.valueOf(targets.member()),
                "%OUTSIDER%", String.valueOf(targets.outsider()));
    }

    /**
     * The requests the hostile ones are made from succeed: each hostile request is refused for
     * what was broken in it, not for something else.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(RestOperation.class)
    void theValidRequestOfEveryOperationSucceeds(RestOperation operation) throws IOException {
        List<String> headers = operation.hasBody() ? List.of("Content-Type: application/json") : List.of();
        byte[] body = operation.hasBody() ? operation.validBody().getBytes(StandardCharsets.UTF_8) : null;
        Http1Response response = send(operation.method, operation.validTarget(), headers, body, Framing.CONTENT_LENGTH);
        assertThat(response.status()).as("%s %s -> %s", operation.method, operation.validTarget(), response.bodyText())
                .isBetween(200, 299);
    }

    /** The limit is inclusive: a body of exactly tandem.limits.max-request-bytes is read. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = RestOperation.class, names = {"CREATE_GROUP", "UPDATE_GROUP", "JOIN_GROUP", "RATE_GROUP",
            "SCHEDULE_SESSION", "CREATE_USER"})
    void aBodyOfExactlyTheLimitIsAccepted(RestOperation operation) throws IOException {
        byte[] body = HostileRestRequests.pad(fill(operation.validBody()), HostileRestRequests.MAX_REQUEST_BYTES);
        for (Framing framing : List.of(Framing.CONTENT_LENGTH, Framing.CHUNKED)) {
            seed.reset(1);
            Http1Response response = send(operation.method, operation.validTarget(),
                    List.of("Content-Type: application/json"), body, framing);
            assertThat(response.status()).as("%s %s (%s) -> %s", operation.method, operation.validTarget(), framing,
                    response.bodyText()).isBetween(200, 299);
        }
    }

    @Test
    void everyOperationIsAttacked() {
        Set<RestOperation> attacked = HostileRestRequests.all().stream().map(Hostile::operation)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(RestOperation.class)));
        assertThat(attacked).containsExactlyInAnyOrder(RestOperation.values());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.tandem.rest.hostile.HostileRestRequests#all")
    void hostileRequestIsAClearClientErrorThatChangesNothing(Hostile hostile) throws IOException {
        List<String> before = SeededRows.checksums(jdbc);

        Http1Response response = send(hostile.method(), hostile.target(), hostile.headers(), hostile.body(),
                hostile.framing());

        Expect expect = hostile.expect();
        String shown = response.bodyText().length() > 600 ? response.bodyText().substring(0, 600) + "..." : response.bodyText();
        assertThat(response.status()).as("status of %s (body: %s)", hostile, shown).isEqualTo(expect.status());
        assertThat(response.header("Content-Type")).as("Content-Type of %s", hostile)
                .startsWith("application/problem+json");
        JsonNode problem = json.readTree(response.bodyText());
        assertThat(problem.path("status").asInt()).isEqualTo(expect.status());
        assertThat(problem.path("code").asString()).as("code of %s: %s", hostile, shown).isEqualTo(expect.code());
        assertThat(problem.path("title").asString()).isNotBlank();
        String detail = problem.path("detail").asString();
        assertThat(detail).as("detail of %s", hostile).isNotBlank()
                .doesNotContain("tools.jackson").doesNotContain("java.").doesNotContain("dev.tandem");
        if (problem.has("instance")) {
            // The path asked for, also where the refusal went through the error page (not "/error").
            assertThat(problem.path("instance").asString()).as("instance of %s", hostile)
                    .isEqualTo(fill(hostile.target()).split("\\?", 2)[0]);
        }
        if (expect.detailContains() != null) {
            assertThat(detail).as("detail of %s", hostile).contains(expect.detailContains());
        }
        if (expect.fields() != null) {
            List<String> named = new ArrayList<>();
            problem.path("fieldViolations").forEach(v -> named.add(v.path("field").asString()));
            assertThat(Set.copyOf(named)).as("fieldViolations of %s: %s", hostile, shown)
                    .containsExactlyInAnyOrderElementsOf(Set.copyOf(expect.fields()));
        }

        assertThat(SeededRows.checksums(jdbc)).as("every table unchanged after %s", hostile).isEqualTo(before);
        assertStillHealthy();
        // It changed nothing, so the next case needs no reset: a reset was half of each case's time.
        SeedResets.keptBy(getClass());
    }

    /**
     * A DELETE's body is not read, whatever its Content-Type: Boot's form filter parsed a form body
     * on every DELETE, and a malformed escape failed that parse with a 500 before the handler ran.
     */
    @Test
    void aFormBodyOnADeleteIsNotRead() throws IOException {
        Http1Response response = send("DELETE", "/api/v1/groups/999999999/members/1",
                List.of("Content-Type: application/x-www-form-urlencoded"), "x=%zz".getBytes(StandardCharsets.US_ASCII),
                Framing.CONTENT_LENGTH);

        assertThat(response.status()).as(response.bodyText()).isEqualTo(404);
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
    }

    /**
     * A body declared (Content-Length) but never sent is the client's mistake: 408 problem+json,
     * code DEADLINE_EXCEEDED (what the same request gets over gRPC), once the server has waited the
     * request timeout for it, and nothing is written. Before: after Tomcat's 60-s connection
     * timeout, a 500 INTERNAL logged as an unexpected failure (SocketTimeoutException). It waits the
     * default 10 s: a lower request timeout would need a context of its own, which costs as long to
     * start, and this context's other tests need the default.
     */
    @Test
    void aBodyThatNeverArrivesIsA408AtTheRequestTimeout() throws IOException {
        List<String> before = SeededRows.checksums(jdbc);
        Duration timeout = deadlines.requestTimeout();
        long sent = System.nanoTime();

        Http1Response response = send("POST", "/api/v1/users", List.of("Content-Type: application/json"),
                "{\"name\":\"Never Sent\",\"email\":\"never-sent@example.com\"}".getBytes(StandardCharsets.US_ASCII),
                Framing.DECLARED_ONLY);
        Duration after = Duration.ofNanos(System.nanoTime() - sent);

        assertThat(response.status()).as(response.bodyText()).isEqualTo(408);
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
        JsonNode problem = json.readTree(response.bodyText());
        assertThat(problem.path("code").asString()).isEqualTo("DEADLINE_EXCEEDED");
        assertThat(problem.path("detail").asString()).contains("body");
        assertThat(after).as("answered once the request timeout passed, not at Tomcat's 60-s connection timeout")
                .isGreaterThanOrEqualTo(timeout).isLessThan(timeout.plusSeconds(15));
        assertThat(SeededRows.checksums(jdbc)).isEqualTo(before);
        assertStillHealthy();
    }

    private Http1Response send(String method, String target, List<String> headers, byte[] body, Framing framing)
            throws IOException {
        List<String> all = new ArrayList<>();
        // Hand-built requests carry the write token themselves: a hostile body must get past
        // authentication to reach the parser.
        all.add("Authorization: Bearer " + DevTokens.devWriter());
        headers.forEach(h -> all.add(fill(h)));
        return RawHttp.exchange(port, method, fill(target), all, body == null ? null : fill(body), framing);
    }

    private String fill(String text) {
        for (Map.Entry<String, String> placeholder : placeholders.entrySet()) {
            text = text.replace(placeholder.getKey(), placeholder.getValue());
        }
        return text;
    }

    /**
     * Placeholders in a body that may hold any bytes (ISO-8859-1 maps bytes to chars one to one).
     * Each value is padded with spaces to its placeholder's width, so that a body built to a
     * given size keeps that size; placeholders stand only where JSON allows the spaces.
     */
    private byte[] fill(byte[] body) {
        String text = new String(body, StandardCharsets.ISO_8859_1);
        for (Map.Entry<String, String> placeholder : placeholders.entrySet()) {
            String value = placeholder.getValue();
            text = text.replace(placeholder.getKey(), value + " ".repeat(Math.max(0, placeholder.getKey().length() - value.length())));
        }
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private void assertStillHealthy() {
        get("/actuator/health").expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("UP");
        get("/api/v1/groups/1").expectStatus().isOk().expectBody().jsonPath("$.id").isEqualTo(1);
    }
}
