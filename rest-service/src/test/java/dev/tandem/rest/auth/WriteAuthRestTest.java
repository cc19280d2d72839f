package dev.tandem.rest.auth;

import dev.tandem.testsupport.SeededRows;
import dev.tandem.auth.BadTokens;
import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes need a writer's bearer token; reads do not. Every write route is tried with no token, with
 * each kind of bad token and with a valid token that lacks the write scope: each is refused with the
 * problem+json every other failure has, the RFC 6750 challenge, and not a row changed in MariaDB
 * (nor the cache flushed).
 */
class WriteAuthRestTest extends RestIntegrationTest {

    /** One request per write route; bodies that would succeed with a token. */
    record Write(HttpMethod method, String uri, String body) {
        @Override
        public String toString() {
            return method + " " + uri;
        }
    }

    static final List<Write> WRITES = List.of(
            new Write(HttpMethod.POST, "/api/v1/users", "{\"name\":\"Ada\",\"email\":\"ada-auth@example.test\"}"),
            new Write(HttpMethod.POST, "/api/v1/groups",
                    "{\"name\":\"Graph theory\",\"subject\":\"algorithms\",\"capacity\":10,\"ownerId\":1}"),
            new Write(HttpMethod.PATCH, "/api/v1/groups/1",
                    "{\"group\":{\"name\":\"Renamed\"},\"updateMask\":\"name\",\"expectedVersion\":1}"),
            new Write(HttpMethod.DELETE, "/api/v1/groups/1", null),
            new Write(HttpMethod.POST, "/api/v1/groups/1/members", "{\"userId\":100}"),
            new Write(HttpMethod.DELETE, "/api/v1/groups/1/members/1", null),
            new Write(HttpMethod.POST, "/api/v1/groups/1/ratings", "{\"userId\":100,\"stars\":5}"),
            new Write(HttpMethod.POST, "/api/v1/groups/1/sessions",
                    "{\"topic\":\"Flows\",\"startTime\":\"2031-01-01T18:00:00Z\",\"durationMinutes\":90}"),
            new Write(HttpMethod.DELETE, "/actuator/cache", null),
            new Write(HttpMethod.POST, "/actuator/cache", "{\"resetCounters\":true}"),
            // Not a route at all, and still refused first: no write of any kind gets past the filter.
            new Write(HttpMethod.PUT, "/api/v1/groups/1", "{}"));

    @Test
    void everyWriteWithoutATokenIsUnauthenticatedAndChangesNothing() {
        for (Write write : WRITES) {
            expectRefused(write, null, HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED", "Bearer realm=\"tandem\"");
        }
    }

    @Test
    void everyWriteWithABadTokenIsUnauthenticatedAndChangesNothing() {
        for (Write write : WRITES) {
            BadTokens.unauthenticated().forEach((name, authorization) -> {
                String challenge = authorization.startsWith("Bearer ")
                        ? "Bearer realm=\"tandem\", error=\"invalid_token\"" : "Bearer realm=\"tandem\"";
                expectRefused(write, authorization, HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED", challenge);
            });
        }
    }

    @Test
    void everyWriteWithoutTheWriteScopeIsPermissionDeniedAndChangesNothing() {
        for (Write write : WRITES) {
            expectRefused(write, BadTokens.withoutWriteScope(), HttpStatus.FORBIDDEN, "PERMISSION_DENIED",
                    "Bearer realm=\"tandem\", error=\"insufficient_scope\", scope=\"tandem:write\"");
        }
    }

    @Test
    void aRefusalHasExactlyTheShapeOfEveryOtherProblem() {
        JsonNode refused = bodyOf(exchange(WRITES.getFirst(), null));
        JsonNode notFound = bodyOf(get("/api/v1/groups/999999"));
        // The members of a domain problem; a refusal names no resource.
        List<String> expected = names(notFound);
        expected.remove("resource");
        assertThat(names(refused)).containsExactlyInAnyOrderElementsOf(expected)
                .containsExactlyInAnyOrder("title", "status", "detail", "instance", "code");
        assertThat(refused.get("title").asString()).isEqualTo("Unauthorized");
        assertThat(refused.get("status").asInt()).isEqualTo(401);
        assertThat(refused.get("instance").asString()).isEqualTo("/api/v1/users");
        assertThat(refused.get("detail").asString()).contains("bearer token");
        JsonNode denied = bodyOf(exchange(WRITES.getFirst(), BadTokens.withoutWriteScope()));
        assertThat(denied.get("title").asString()).isEqualTo("Forbidden");
        assertThat(denied.get("detail").asString()).contains("tandem:write");
    }

    @Test
    void everyReadAnswersWithoutAToken() {
        for (String uri : List.of("/api/v1/groups/1", "/api/v1/groups?subject=physics&page_size=2",
                "/api/v1/leaderboard?limit=5", "/api/v1/users/1", "/api/v1/hello", "/v3/api-docs",
                "/actuator/health", "/actuator/cache", "/actuator/prometheus")) {
            anonymous.get().uri(uri).exchange().expectStatus().isOk();
        }
        anonymous.head().uri("/api/v1/groups/1").exchange().expectStatus().isOk();
        anonymous.options().uri("/api/v1/groups/1").exchange().expectStatus().isOk();
    }

    @Test
    void theOpenApiDocumentSaysWhichOperationsNeedTheToken() {
        JsonNode doc = bodyOf(anonymous.get().uri("/v3/api-docs").exchange().expectStatus().isOk());
        JsonNode scheme = doc.at("/components/securitySchemes/bearerAuth");
        assertThat(scheme.get("type").asString()).isEqualTo("http");
        assertThat(scheme.get("scheme").asString()).isEqualTo("bearer");
        JsonNode paths = doc.get("paths");
        assertThat(paths.at("/~1api~1v1~1users/post/security/0").has("bearerAuth")).isTrue();
        assertThat(paths.at("/~1api~1v1~1groups~1{id}/patch/security/0").has("bearerAuth")).isTrue();
        assertThat(paths.at("/~1api~1v1~1groups~1{id}/delete/security/0").has("bearerAuth")).isTrue();
        assertThat(paths.at("/~1api~1v1~1groups~1{id}/get").has("security")).isFalse();
        assertThat(paths.at("/~1api~1v1~1groups/get").has("security")).isFalse();
    }

    @Test
    void aWriteTokenWrites() {
        long users = count("users");
        anonymous.post().uri("/api/v1/users").header(HttpHeaders.AUTHORIZATION, bearer(WRITER))
                .contentType(MediaType.APPLICATION_JSON).body("{\"name\":\"Ada\",\"email\":\"ada-ok@example.test\"}")
                .exchange().expectStatus().isCreated();
        assertThat(count("users")).isEqualTo(users + 1);
        JsonNode flushesBefore = cacheFlushes();
        anonymous.delete().uri("/actuator/cache").header(HttpHeaders.AUTHORIZATION, bearer(WRITER))
                .exchange().expectStatus().isOk();
        assertThat(cacheFlushes()).isNotEqualTo(flushesBefore);
        // The scheme name is case-insensitive (RFC 9110 §11.1).
        anonymous.post().uri("/api/v1/groups/1/members").header(HttpHeaders.AUTHORIZATION, "bearer " + WRITER)
                .contentType(MediaType.APPLICATION_JSON).body("{\"userId\":100}")
                .exchange().expectStatus().isCreated();
    }

    /**
     * A write without a token is 401 before its body's size is looked at, as on gRPC, where the write
     * check closes the call before its message is read: the two filters must not share an order
     * (then which runs first is the registration's accident).
     */
    @Test
    void aWriteWithoutATokenIsUnauthenticatedWhateverTheSizeOfItsBody() {
        String tooLarge = "{\"name\":\"" + "a".repeat(128 * 1024) + "\",\"email\":\"big@example.test\"}";
        expectProblem(anonymous.post().uri("/api/v1/users").contentType(MediaType.APPLICATION_JSON).body(tooLarge).exchange(),
                HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED");
    }

    /** Two Authorization headers: refused in either order (the servlet API would check only the first). */
    @Test
    void aWriteWithTwoAuthorizationHeadersIsUnauthenticatedInEitherOrder() {
        for (List<String> values : List.of(List.of(bearer(WRITER), "Bearer junk"), List.of("Bearer junk", bearer(WRITER)))) {
            Map<String, List<Map<String, Object>>> before = SeededRows.database(jdbc);
            RestTestClient.ResponseSpec response = anonymous.post().uri("/api/v1/users")
                    .headers(h -> h.addAll(HttpHeaders.AUTHORIZATION, values))
                    .contentType(MediaType.APPLICATION_JSON).body("{\"name\":\"Two\",\"email\":\"two-tokens@example.test\"}")
                    .exchange();
            expectProblem(response, HttpStatus.UNAUTHORIZED, "UNAUTHENTICATED");
            assertThat(SeededRows.database(jdbc)).as("rows after a write with %s", values).isEqualTo(before);
        }
    }

    private void expectRefused(Write write, String authorization, HttpStatus status, String code, String challenge) {
        String what = write + " with " + (authorization == null ? "no token" : authorization);
        Map<String, List<Map<String, Object>>> before = SeededRows.database(jdbc);
        JsonNode flushesBefore = cacheFlushes();
        RestTestClient.ResponseSpec response = exchange(write, authorization);
        response.expectHeader().valueEquals(HttpHeaders.WWW_AUTHENTICATE, challenge);
        expectProblem(response, status, code);
        assertThat(SeededRows.database(jdbc)).as("rows after " + what).isEqualTo(before);
        assertThat(cacheFlushes()).as("cache flushes after " + what).isEqualTo(flushesBefore);
    }

    private RestTestClient.ResponseSpec exchange(Write write, String authorization) {
        RestTestClient.RequestBodySpec request = anonymous.method(write.method()).uri(write.uri());
        if (authorization != null) {
            request.header(HttpHeaders.AUTHORIZATION, authorization);
        }
        if (write.body() != null) {
            request.contentType(MediaType.APPLICATION_JSON).body(write.body());
        }
        return request.exchange();
    }

    /** How often each instance flushed its L1, by reason, from /actuator/cache. */
    private JsonNode cacheFlushes() {
        return bodyOf(get("/actuator/cache").expectStatus().isOk()).get("l1Flushes");
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }
}
