package dev.tandem.rest.group;

import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.Concurrently;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** CreateGroup, UpdateGroup and DeleteGroup over HTTP, and that a rejected write changes nothing. */
class GroupWritesRestTest extends RestIntegrationTest {

    private static final String VALID_GROUP = """
            {"name": "Graph theory night", "subject": "algorithms", "description": "Dijkstra and friends",
             "capacity": 12, "ownerId": 7}
            """;

    // ---- POST /api/v1/groups -------------------------------------------------------------------

    @Test
    void createAnswers201WithLocationAndTheNewGroup() {
        List<Long> before = allCounts();

        EntityExchangeResult<String> created = post("/api/v1/groups", VALID_GROUP)
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();

        JsonNode group = json.readTree(created.getResponseBody());
        long id = group.get("id").asLong();
        assertThat(created.getResponseHeaders().getLocation()).hasToString("/api/v1/groups/" + id);
        assertThat(group.get("name").asString()).isEqualTo("Graph theory night");
        assertThat(group.get("subject").asString()).isEqualTo("algorithms");
        assertThat(group.get("description").asString()).isEqualTo("Dijkstra and friends");
        assertThat(group.get("capacity").asInt()).isEqualTo(12);
        assertThat(group.get("ownerId").asLong()).isEqualTo(7);
        assertThat(group.get("memberCount").asInt()).as("the owner is the first member").isEqualTo(1);
        assertThat(group.get("ratingCount").asInt()).isZero();
        assertThat(group.get("version").asLong()).isZero();
        assertThat(group.get("createTime").asString()).isNotEmpty();
        // What was answered is what is stored.
        assertThat(json.readTree(read("/api/v1/groups/{id}", id))).isEqualTo(group);
        assertThat(count("study_groups")).isEqualTo(before.get(1) + 1);
        assertThat(memberCount(id)).isEqualTo(1);
    }

    @Test
    void createAcceptsInt64AsStringsAndProtoFieldNames() {
        // protobuf's JSON mapping writes int64 as strings, and its parser accepts proto field names.
        JsonNode group = bodyOf(post("/api/v1/groups", """
                {"name": "Strings ok", "subject": "history", "capacity": "2", "owner_id": "3"}
                """).expectStatus().isCreated());
        assertThat(group.get("ownerId").asLong()).isEqualTo(3);
        assertThat(group.get("capacity").asInt()).isEqualTo(2);
        assertThat(group.get("description").asString()).isEmpty();
    }

    @Test
    void capacityBoundsAreInclusive() {
        post("/api/v1/groups", group("capacity", "2")).expectStatus().isCreated();
        post("/api/v1/groups", group("capacity", "500")).expectStatus().isCreated();
    }

    static Stream<Arguments> invalidGroups() {
        return Stream.of(
                Arguments.of("name", "\"ab\"", "name"),
                Arguments.of("name", "\"" + repeat('n', 101) + "\"", "name"),
                Arguments.of("name", "\"   \"", "name"),
                Arguments.of("subject", "\"\"", "subject"),
                Arguments.of("subject", "\"Linear Algebra\"", "subject"),
                Arguments.of("subject", "\"" + repeat('s', 51) + "\"", "subject"),
                Arguments.of("description", "\"" + repeat('d', 1001) + "\"", "description"),
                Arguments.of("capacity", "1", "capacity"),
                Arguments.of("capacity", "501", "capacity"),
                Arguments.of("capacity", "-5", "capacity"),
                Arguments.of("ownerId", "0", "owner_id"),
                Arguments.of("ownerId", "-3", "owner_id"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("invalidGroups")
    void createRejectsEachInvalidFieldAndStoresNothing(String field, String value, String violation) {
        List<Long> before = allCounts();
        expectInvalid(post("/api/v1/groups", group(field, value)), violation);
        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void createWithEmptyObjectNamesEveryRequiredField() {
        expectInvalid(post("/api/v1/groups", "{}"), "name", "subject", "capacity", "owner_id");
        assertThat(count("study_groups")).isEqualTo(50);
    }

    @Test
    void createForUnknownOwnerIsNotFoundAndStoresNothing() {
        List<Long> before = allCounts();
        expectProblem(post("/api/v1/groups", group("ownerId", "4242")), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("user")
                .jsonPath("$.resource.name").isEqualTo("4242");
        assertThat(allCounts()).isEqualTo(before);
    }

    static Stream<Arguments> wrongJsonTypes() {
        return Stream.of(
                Arguments.of("capacity", "\"many\"", "capacity"),
                Arguments.of("capacity", "2.5", "capacity"),
                Arguments.of("capacity", "true", "capacity"),
                Arguments.of("capacity", "99999999999", "capacity"),
                Arguments.of("ownerId", "\"seven\"", "owner_id"),
                Arguments.of("ownerId", "[7]", "owner_id"),
                Arguments.of("name", "{\"first\": \"x\"}", "name"),
                Arguments.of("name", "[\"x\"]", "name"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("wrongJsonTypes")
    void createRejectsWrongJsonTypesNamingTheField(String field, String value, String violation) {
        List<Long> before = allCounts();
        expectInvalid(post("/api/v1/groups", group(field, value)), violation);
        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void createRejectsUnknownFieldsByName() {
        List<Long> before = allCounts();
        expectInvalid(post("/api/v1/groups", """
                {"name": "Graph theory night", "subject": "algorithms", "capacity": 12, "ownerId": 7, "colour": "red"}
                """), "colour");
        assertThat(allCounts()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"name\": \"x\"", "{name: 'x'}", "not json", "{\"name\": \"x\",}"})
    void createRejectsMalformedJson(String body) {
        List<Long> before = allCounts();
        expectProblem(post("/api/v1/groups", body), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("not valid JSON"));
        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void createRejectsABodyThatIsNotAnObject() {
        expectProblem(post("/api/v1/groups", "[]"), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(post("/api/v1/groups", "\"group\""), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        assertThat(count("study_groups")).isEqualTo(50);
    }

    @Test
    void createWithoutBodyIsInvalid() {
        expectProblem(http.post().uri("/api/v1/groups").contentType(MediaType.APPLICATION_JSON).exchange(),
                HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("body is required"));
        assertThat(count("study_groups")).isEqualTo(50);
    }

    @Test
    void createWithAnotherContentTypeIsUnsupported() {
        List<Long> before = allCounts();
        expectProblem(http.post().uri("/api/v1/groups").contentType(MediaType.TEXT_PLAIN).body(VALID_GROUP).exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .body("name=x").exchange(), HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(allCounts()).isEqualTo(before);
    }

    // ---- PATCH /api/v1/groups/{id} -------------------------------------------------------------

    @Test
    void updateChangesOnlyTheMaskedFieldsAndBumpsTheVersion() {
        JsonNode before = readJson("/api/v1/groups/3");

        JsonNode updated = bodyOf(patch("/api/v1/groups/3", """
                {"group": {"name": "Renamed circle", "subject": "history", "description": "ignored", "capacity": 40},
                 "updateMask": "name,capacity", "expectedVersion": 0}
                """).expectStatus().isOk().expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON));

        assertThat(updated.get("name").asString()).isEqualTo("Renamed circle");
        assertThat(updated.get("capacity").asInt()).isEqualTo(40);
        assertThat(updated.get("subject")).isEqualTo(before.get("subject"));
        assertThat(updated.get("description")).isEqualTo(before.get("description"));
        assertThat(updated.get("version").asLong()).isEqualTo(1);
        assertThat(readJson("/api/v1/groups/3")).isEqualTo(updated);
        assertThat(groupRow(3)).containsEntry("name", "Renamed circle").containsEntry("capacity", 40)
                .containsEntry("description", before.get("description").asString());
    }

    @Test
    void updateAcceptsProtoFieldNamesCamelCaseMaskPathsAndInt64Strings() {
        JsonNode updated = bodyOf(patch("/api/v1/groups/4", """
                {"group": {"description": "New words"}, "update_mask": " description ", "expected_version": "0"}
                """).expectStatus().isOk());
        assertThat(updated.get("description").asString()).isEqualTo("New words");
        assertThat(updated.get("version").asLong()).isEqualTo(1);
    }

    @Test
    void updateAcceptsAGroupSentBackAsItWasRead() {
        // A client may read a group, change it and send the whole message back: output-only fields
        // of Group are ignored, as protobuf's parser would accept them and the mask ignores them.
        ObjectNode group = (ObjectNode) readJson("/api/v1/groups/5");
        group.put("name", "Read, changed, written");
        ObjectNode request = json.createObjectNode();
        request.set("group", group);
        request.put("updateMask", "name");
        request.put("expectedVersion", group.get("version").asLong());

        JsonNode updated = bodyOf(patch("/api/v1/groups/5", json.writeValueAsString(request)).expectStatus().isOk());
        assertThat(updated.get("name").asString()).isEqualTo("Read, changed, written");
    }

    @Test
    void staleExpectedVersionIsAbortedAndTheWinnerKeepsTheRow() {
        patch("/api/v1/groups/6", """
                {"group": {"name": "The winner"}, "updateMask": "name", "expectedVersion": 0}
                """).expectStatus().isOk();
        String afterWinner = read("/api/v1/groups/6");
        Map<String, Object> winnerRow = groupRow(6);

        expectProblem(patch("/api/v1/groups/6", """
                {"group": {"name": "The loser"}, "updateMask": "name", "expectedVersion": 0}
                """), HttpStatus.CONFLICT, "ABORTED")
                .jsonPath("$.resource.type").isEqualTo("group")
                .jsonPath("$.resource.name").isEqualTo("6");

        assertThat(read("/api/v1/groups/6")).isEqualTo(afterWinner);
        assertThat(groupRow(6)).isEqualTo(winnerRow).containsEntry("name", "The winner");
        assertThat(readJson("/api/v1/groups/6").get("name").asString()).isEqualTo("The winner");
    }

    @Test
    void concurrentUpdatesAtTheSameVersionLetExactlyOneWin() throws InterruptedException {
        List<Callable<EntityExchangeResult<String>>> updates = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String body = """
                    {"group": {"name": "Writer %d"}, "updateMask": "name", "expectedVersion": 0}
                    """.formatted(i);
            updates.add(() -> patch("/api/v1/groups/7", body).expectBody(String.class).returnResult());
        }

        List<Object> outcomes = Concurrently.run(updates);

        List<String> winners = new ArrayList<>();
        for (Object outcome : outcomes) {
            assertThat(outcome).isInstanceOf(EntityExchangeResult.class);
            EntityExchangeResult<?> result = (EntityExchangeResult<?>) outcome;
            JsonNode body = json.readTree((String) result.getResponseBody());
            if (result.getStatus().value() == 200) {
                winners.add(body.get("name").asString());
            } else {
                assertThat(result.getStatus().value()).isEqualTo(409);
                assertThat(body.get("code").asString()).isEqualTo("ABORTED");
            }
        }
        assertThat(winners).hasSize(1);
        JsonNode stored = readJson("/api/v1/groups/7");
        assertThat(stored.get("name").asString()).isEqualTo(winners.getFirst());
        assertThat(stored.get("version").asLong()).isEqualTo(1);
        assertThat(groupRow(7)).containsEntry("name", winners.getFirst());
        assertThat(((Number) groupRow(7).get("version")).longValue()).isEqualTo(1);
    }

    static Stream<Arguments> invalidUpdates() {
        return Stream.of(
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"\", \"expectedVersion\": 0}", "update_mask"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"expectedVersion\": 0}", "update_mask"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"ownerId\", \"expectedVersion\": 0}", "update_mask"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name,version\", \"expectedVersion\": 0}", "update_mask"),
                Arguments.of("{\"group\": {\"name\": \"\"}, \"updateMask\": \"name\", \"expectedVersion\": 0}", "group.name"),
                Arguments.of("{\"updateMask\": \"name\", \"expectedVersion\": 0}", "group.name"),
                Arguments.of("{\"group\": {\"subject\": \"No Caps\"}, \"updateMask\": \"subject\", \"expectedVersion\": 0}", "group.subject"),
                Arguments.of("{\"group\": {\"description\": \"" + repeat('d', 1001) + "\"}, \"updateMask\": \"description\", \"expectedVersion\": 0}", "group.description"),
                Arguments.of("{\"group\": {\"capacity\": 1}, \"updateMask\": \"capacity\", \"expectedVersion\": 0}", "group.capacity"),
                Arguments.of("{\"group\": {\"capacity\": 501}, \"updateMask\": \"capacity\", \"expectedVersion\": 0}", "group.capacity"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\", \"expectedVersion\": -1}", "expected_version"),
                Arguments.of("{\"group\": {\"capacity\": \"lots\"}, \"updateMask\": \"capacity\", \"expectedVersion\": 0}", "group.capacity"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": [\"name\"], \"expectedVersion\": 0}", "update_mask"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\", \"expectedVersion\": \"v1\"}", "expected_version"),
                Arguments.of("{\"group\": {\"name\": \"ok name\", \"mood\": \"happy\"}, \"updateMask\": \"name\", \"expectedVersion\": 0}", "group.mood"),
                Arguments.of("{\"group\": \"ok name\", \"updateMask\": \"name\", \"expectedVersion\": 0}", "group"),
                Arguments.of("{\"id\": 8, \"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\", \"expectedVersion\": 0}", "id"));
    }

    @ParameterizedTest
    @MethodSource("invalidUpdates")
    void updateRejectsInvalidInputAndLeavesTheRowAlone(String body, String violation) {
        String before = read("/api/v1/groups/8");
        Map<String, Object> row = groupRow(8);
        expectInvalid(patch("/api/v1/groups/8", body), violation);
        assertThat(read("/api/v1/groups/8")).isEqualTo(before);
        assertThat(groupRow(8)).isEqualTo(row);
    }

    @Test
    void capacityBelowTheMemberCountIsAFailedPrecondition() {
        long id = bodyOf(post("/api/v1/groups", VALID_GROUP).expectStatus().isCreated()).get("id").asLong();
        post("/api/v1/groups/{id}/members", "{\"userId\": 1}", id).expectStatus().isCreated();
        post("/api/v1/groups/{id}/members", "{\"userId\": 2}", id).expectStatus().isCreated();
        assertThat(memberCount(id)).isEqualTo(3);
        String before = read("/api/v1/groups/{id}", id);
        Map<String, Object> row = groupRow(id);

        expectProblem(patch("/api/v1/groups/{id}", """
                {"group": {"capacity": 2}, "updateMask": "capacity", "expectedVersion": 0}
                """, id), HttpStatus.CONFLICT, "FAILED_PRECONDITION");
        assertThat(read("/api/v1/groups/{id}", id)).isEqualTo(before);
        assertThat(groupRow(id)).isEqualTo(row);
        // Down to exactly the member count is allowed.
        patch("/api/v1/groups/{id}", """
                {"group": {"capacity": 3}, "updateMask": "capacity", "expectedVersion": 0}
                """, id).expectStatus().isOk();
    }

    @Test
    void updateOfUnknownOrNonNumericGroup() {
        String body = "{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\", \"expectedVersion\": 0}";
        expectProblem(patch("/api/v1/groups/9999", body), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("group");
        expectInvalid(patch("/api/v1/groups/eight", body), "id");
    }

    @Test
    void updateWithMalformedJsonOrWrongContentTypeLeavesTheRowAlone() {
        String before = read("/api/v1/groups/8");
        Map<String, Object> row = groupRow(8);
        expectProblem(patch("/api/v1/groups/8", "{\"group\": {"), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(http.patch().uri("/api/v1/groups/8").contentType(MediaType.TEXT_PLAIN)
                        .body("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\"}").exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(read("/api/v1/groups/8")).isEqualTo(before);
        assertThat(groupRow(8)).isEqualTo(row);
    }

    // ---- DELETE /api/v1/groups/{id} ------------------------------------------------------------

    @Test
    void deleteRemovesTheGroupWithItsMembersSessionsAndRatings() {
        long groups = count("study_groups");
        delete("/api/v1/groups/10").expectStatus().isNoContent().expectBody().isEmpty();

        expectProblem(get("/api/v1/groups/10"), HttpStatus.NOT_FOUND, "NOT_FOUND");
        assertThat(count("study_groups")).isEqualTo(groups - 1);
        for (String table : List.of("group_members", "study_sessions", "ratings")) {
            assertThat(jdbc.sql("SELECT COUNT(*) FROM " + table + " WHERE group_id = 10").query(Long.class).single())
                    .as(table).isZero();
        }
        expectProblem(delete("/api/v1/groups/10"), HttpStatus.NOT_FOUND, "NOT_FOUND");
    }

    @Test
    void deleteAtTheExpectedVersion() {
        patch("/api/v1/groups/11", "{\"group\": {\"name\": \"Version one\"}, \"updateMask\": \"name\", \"expectedVersion\": 0}")
                .expectStatus().isOk();
        delete("/api/v1/groups/11?expected_version=1").expectStatus().isNoContent();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM study_groups WHERE id = 11").query(Long.class).single()).isZero();
    }

    @Test
    void deleteAtAStaleVersionIsAbortedAndKeepsTheGroup() {
        patch("/api/v1/groups/12", "{\"group\": {\"name\": \"Version one\"}, \"updateMask\": \"name\", \"expectedVersion\": 0}")
                .expectStatus().isOk();
        List<Long> before = allCounts();

        expectProblem(delete("/api/v1/groups/12?expected_version=7"), HttpStatus.CONFLICT, "ABORTED");
        expectProblem(delete("/api/v1/groups/12?expectedVersion=7"), HttpStatus.CONFLICT, "ABORTED");

        assertThat(allCounts()).isEqualTo(before);
        assertThat(readJson("/api/v1/groups/12").get("name").asString()).isEqualTo("Version one");
        assertThat(groupRow(12)).containsEntry("name", "Version one");
    }

    @Test
    void deleteWithBadParametersChangesNothing() {
        List<Long> before = allCounts();
        expectInvalid(delete("/api/v1/groups/abc"), "id");
        expectInvalid(delete("/api/v1/groups/12?expected_version=latest"), "expected_version");
        expectProblem(delete("/api/v1/groups/9999"), HttpStatus.NOT_FOUND, "NOT_FOUND");
        assertThat(allCounts()).isEqualTo(before);
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** VALID_GROUP with one field replaced by a raw JSON value. */
    private String group(String field, String rawJsonValue) {
        ObjectNode body = (ObjectNode) json.readTree(VALID_GROUP);
        body.set(field, json.readTree(rawJsonValue));
        return json.writeValueAsString(body);
    }
}
