package dev.tandem.rest.server;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the service publishes besides the API: OpenAPI, health, metrics; and that it runs on virtual threads. */
class ServerRestTest extends RestIntegrationTest {

    @Test
    void openApiDocumentListsEveryOperation() {
        JsonNode doc = readJson("/v3/api-docs");
        assertThat(doc.get("openapi").asString()).startsWith("3.");
        assertThat(doc.at("/info/title").asString()).contains("StudyGroupService");
        JsonNode paths = doc.get("paths");
        assertThat(methods(paths, "/api/v1/groups")).contains("get", "post");
        assertThat(methods(paths, "/api/v1/groups/{id}")).contains("get", "patch", "delete");
        assertThat(methods(paths, "/api/v1/groups/{group_id}/members")).contains("post");
        assertThat(methods(paths, "/api/v1/groups/{group_id}/members/{user_id}")).contains("delete");
        assertThat(methods(paths, "/api/v1/groups/{group_id}/ratings")).contains("post");
        assertThat(methods(paths, "/api/v1/groups/{group_id}/sessions")).contains("post");
        assertThat(methods(paths, "/api/v1/leaderboard")).contains("get");
        assertThat(methods(paths, "/api/v1/users")).contains("post");
        assertThat(methods(paths, "/api/v1/users/{id}")).contains("get");
        // Operations are named as the RPCs, with the statuses they answer and the problem+json errors.
        JsonNode createGroup = paths.at("/~1api~1v1~1groups/post");
        assertThat(createGroup.get("operationId").asString()).isEqualTo("CreateGroup");
        assertThat(createGroup.get("responses").has("201")).isTrue();
        assertThat(createGroup.at("/responses/4XX/content").has("application/problem+json")).isTrue();
        assertThat(paths.at("/~1api~1v1~1groups~1{id}/delete/responses").has("204")).isTrue();
        assertThat(paths.at("/~1api~1v1~1groups~1{id}/patch/operationId").asString()).isEqualTo("UpdateGroup");
        assertThat(doc.at("/components/schemas/Problem/properties").has("fieldViolations")).isTrue();
        // The request bodies are documented with their proto JSON field names.
        JsonNode createGroupBody = doc.at("/components/schemas/CreateGroupRequest/properties");
        assertThat(createGroupBody.has("ownerId")).isTrue();
        assertThat(createGroupBody.has("capacity")).isTrue();
    }

    @Test
    void healthIsUp() {
        get("/actuator/health").expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("UP");
    }

    @Test
    void prometheusAnswersWithHttpServerMetrics() {
        read("/api/v1/groups/1");
        String metrics = get("/actuator/prometheus").expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_PLAIN)
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(metrics).contains("http_server_requests_seconds_count").contains("application=\"tandem-rest-service\"");
    }

    @Test
    void cacheEndpointReportsAndFlushes() {
        read("/api/v1/groups/1");
        get("/actuator/cache").expectStatus().isOk()
                .expectBody().jsonPath("$.mode").isNotEmpty().jsonPath("$.caches").exists();
        http.delete().uri("/actuator/cache?resetCounters=true").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.mode").isNotEmpty();
        // Reads still answer the stored data after a flush.
        assertThat(readJson("/api/v1/groups/1").get("id").asLong()).isEqualTo(1);
    }

    @Test
    void requestsRunOnVirtualThreads() {
        get("/test/thread").expectStatus().isOk().expectBody().jsonPath("$.virtual").isEqualTo(true);
    }

    private static List<String> methods(JsonNode paths, String path) {
        assertThat(paths.has(path)).as("OpenAPI path %s", path).isTrue();
        List<String> methods = new ArrayList<>();
        paths.get(path).propertyNames().forEach(methods::add);
        return methods;
    }
}
