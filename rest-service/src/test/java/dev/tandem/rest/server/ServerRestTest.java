package dev.tandem.rest.server;

import dev.tandem.error.NotBlankText;
import dev.tandem.group.GroupFields;
import dev.tandem.group.NewGroup;
import dev.tandem.group.NewRating;
import dev.tandem.group.NewSession;
import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.user.NewUser;
import jakarta.validation.Validator;
import jakarta.validation.constraints.Email;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import org.hibernate.validator.constraints.CodePointLength;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

import java.lang.reflect.Field;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** What the service publishes besides the API: OpenAPI, health, metrics; and that it runs on virtual threads. */
class ServerRestTest extends RestIntegrationTest {

    @Autowired Validator validator;

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

    /**
     * The conditional GETs are in the document as If-Match is: every read of the API (each GET under
     * /api but WatchGroup's event stream, which has no representation to revalidate) takes
     * If-None-Match and may answer 304; every tagged read (GetGroup and GetUser strong, ListGroups
     * and GetLeaderboard weak) names the ETag header on its 200, and the hello-world, which has no
     * tag (it is the bench's floor) and answers only {@code *} with 304, does not. The reads are
     * found in the document itself, so a new one cannot be left out; they are the reads of
     * RepresentationRestTest's table, which sends each its conditional rows. Failed before: no
     * operation mentioned If-None-Match, ETag or 304 (and later GetLeaderboard and Hello did not),
     * so a client generated from the document could not revalidate.
     */
    @Test
    void openApiDocumentsTheConditionalGetsOfEveryRead() {
        JsonNode paths = readJson("/v3/api-docs").get("paths");
        List<String> reads = new ArrayList<>();
        List<String> tagged = new ArrayList<>();
        for (String path : paths.propertyNames()) {
            JsonNode get = paths.get(path).get("get");
            if (path.startsWith("/api/") && get != null
                    && !get.at("/responses/200/content").has(MediaType.TEXT_EVENT_STREAM_VALUE)) {
                reads.add(path);
                assertThat(get.get("parameters").findValuesAsString("name")).as(path).contains("If-None-Match");
                assertThat(get.get("responses").has("304")).as(path).isTrue();
                if (get.at("/responses/200/headers").has("ETag")) {
                    tagged.add(path);
                }
            }
        }
        assertThat(reads).containsExactlyInAnyOrder("/api/v1/groups/{id}", "/api/v1/users/{id}", "/api/v1/groups",
                "/api/v1/leaderboard", "/api/v1/hello");
        assertThat(tagged).containsExactlyInAnyOrder("/api/v1/groups/{id}", "/api/v1/users/{id}", "/api/v1/groups",
                "/api/v1/leaderboard");
    }

    /**
     * The request bodies' schemas state the domain's rules, so that a client (and the OpenAPI fuzzer,
     * scripts/api-fuzz.sh) can tell a valid request: each bound, pattern and "required" in the
     * document is read off the Bean Validation constraints of the domain record it is checked by,
     * so the document cannot drift from what is enforced. "Required" means that leaving the field
     * out (its proto default: "" or 0) is refused.
     */
    @Test
    void requestBodySchemasStateTheDomainsRules() {
        JsonNode schemas = readJson("/v3/api-docs").at("/components/schemas");
        assertStatesTheRulesOf(schemas.get("CreateUserRequest"), true, NewUser.class);
        assertStatesTheRulesOf(schemas.get("CreateGroupRequest"), true, GroupFields.class, NewGroup.class);
        assertStatesTheRulesOf(schemas.get("RateGroupRequest"), true, NewRating.class);
        assertStatesTheRulesOf(schemas.get("ScheduleSessionRequest"), true, NewSession.class);
        // UpdateGroup applies only the masked fields: none is required, each is bound when applied.
        assertStatesTheRulesOf(schemas.get("GroupValues"), false, GroupFields.class);
    }

    private void assertStatesTheRulesOf(JsonNode schema, boolean requiredToo, Class<?>... domainTypes) {
        assertThat(schema).as("schema").isNotNull();
        Map<String, Object> documented = new TreeMap<>();
        Map<String, Object> enforced = new TreeMap<>();
        for (Map.Entry<String, JsonNode> property : schema.get("properties").properties()) {
            String name = property.getKey();
            JsonNode documentedProperty = property.getValue();
            for (String key : List.of("minLength", "maxLength", "minimum", "maximum", "pattern")) {
                if (documentedProperty.has(key)) {
                    documented.put(name + "." + key, documentedProperty.get(key).asString());
                }
            }
            if ("email".equals(documentedProperty.path("format").asString(""))) {
                documented.put(name + ".format", "email");
            }
            for (Class<?> type : domainTypes) {
                RecordComponent component = Arrays.stream(type.getRecordComponents())
                        .filter(c -> c.getName().equals(name)).findFirst().orElse(null);
                if (component != null) {
                    enforced.putAll(rulesOf(type, component));
                    if (requiredToo && !validator.validateValue(type, name, protoDefault(component.getType())).isEmpty()) {
                        enforced.put(name + ".required", "true");
                    }
                }
            }
        }
        if (requiredToo) {
            schema.path("required").forEach(name -> documented.put(name.asString() + ".required", "true"));
        }
        assertThat(documented).as("the documented rules of %s", List.of(domainTypes)).isEqualTo(enforced);
    }

    private static Map<String, Object> rulesOf(Class<?> type, RecordComponent component) {
        Field field;
        try {
            field = type.getDeclaredField(component.getName());
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
        String name = component.getName();
        Map<String, Object> rules = new TreeMap<>();
        // Text lengths are counted in characters (code points), as JSON Schema's minLength and
        // maxLength count them.
        CodePointLength length = field.getAnnotation(CodePointLength.class);
        int minLength = length == null ? 0 : length.min();
        if (field.isAnnotationPresent(NotBlankText.class)) {
            minLength = Math.max(1, minLength);
        }
        if (minLength > 0) {
            rules.put(name + ".minLength", String.valueOf(minLength));
        }
        if (length != null && length.max() != Integer.MAX_VALUE) {
            rules.put(name + ".maxLength", String.valueOf(length.max()));
        }
        Min min = field.getAnnotation(Min.class);
        if (min != null) {
            rules.put(name + ".minimum", String.valueOf(min.value()));
        }
        if (field.isAnnotationPresent(Positive.class)) {
            rules.put(name + ".minimum", "1");
        }
        Max max = field.getAnnotation(Max.class);
        if (max != null) {
            rules.put(name + ".maximum", String.valueOf(max.value()));
        }
        Pattern pattern = field.getAnnotation(Pattern.class);
        if (pattern != null) {
            rules.put(name + ".pattern", "^" + pattern.regexp() + "$");
        }
        if (field.isAnnotationPresent(Email.class)) {
            rules.put(name + ".format", "email");
        }
        return rules;
    }

    /** What an absent field becomes on its way to the domain: "" or 0 (ProtoValues.orEmpty, ProtoJson.orZero), null for a timestamp. */
    private static Object protoDefault(Class<?> type) {
        if (type == String.class) {
            return "";
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        return null;
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
