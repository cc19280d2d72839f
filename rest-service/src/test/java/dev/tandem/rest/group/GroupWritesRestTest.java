package dev.tandem.rest.group;

import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.SeededRows;
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

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CreateGroup, UpdateGroup and DeleteGroup as only HTTP shows them: 201 with Location, 204 without a
 * body, JSON parsing (numbers as strings, proto field names, unknown fields, wrong types, malformed
 * JSON), path and query parameters, content types; and that such a rejected write changes nothing.
 * What both wires must answer alike is the scenario table in system-tests (WireScenarios).
 */
class GroupWritesRestTest extends RestIntegrationTest {

    private static final String VALID_GROUP = """
            {"name": "Graph theory night", "subject": "algorithms", "description": "Dijkstra and friends",
             "capacity": 12, "ownerId": 7}
            """;

    // ---- POST /api/v1/groups -------------------------------------------------------------------

    @Test
    void createAnswers201WithLocation() {
        EntityExchangeResult<String> created = post("/api/v1/groups", VALID_GROUP)
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();

        long id = json.readTree(created.getResponseBody()).get("id").asLong();
        assertThat(created.getResponseHeaders().getLocation()).hasToString("/api/v1/groups/" + id);
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

    /** Explicit zero values, which protobuf's JSON printer leaves out (the rest is the scenario table's). */
    static Stream<Arguments> invalidGroups() {
        return Stream.of(
                Arguments.of("subject", "\"\"", "subject"),
                Arguments.of("ownerId", "0", "owner_id"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("invalidGroups")
    void createRejectsEachInvalidFieldAndStoresNothing(String field, String value, String violation) {
        var before = allRows();
        expectInvalid(post("/api/v1/groups", group(field, value)), violation);
        assertThat(allRows()).isEqualTo(before);
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
        var before = allRows();
        expectInvalid(post("/api/v1/groups", group(field, value)), violation);
        assertThat(allRows()).isEqualTo(before);
    }

    @Test
    void createRejectsUnknownFieldsByName() {
        var before = allRows();
        expectInvalid(post("/api/v1/groups", """
                {"name": "Graph theory night", "subject": "algorithms", "capacity": 12, "ownerId": 7, "colour": "red"}
                """), "colour");
        assertThat(allRows()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"name\": \"x\"", "{name: 'x'}", "not json", "{\"name\": \"x\",}"})
    void createRejectsMalformedJson(String body) {
        var before = allRows();
        expectProblem(post("/api/v1/groups", body), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("not valid JSON"));
        assertThat(allRows()).isEqualTo(before);
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
        var before = allRows();
        expectProblem(http.post().uri("/api/v1/groups").contentType(MediaType.TEXT_PLAIN).body(VALID_GROUP).exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .body("name=x").exchange(), HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(allRows()).isEqualTo(before);
    }

    // ---- PATCH /api/v1/groups/{id} -------------------------------------------------------------

    @Test
    void updateAcceptsProtoFieldNamesCamelCaseMaskPathsAndInt64Strings() {
        JsonNode updated = bodyOf(patch("/api/v1/groups/4", """
                {"group": {"description": "New words"}, "update_mask": " description ", "expected_version": "1"}
                """).expectStatus().isOk());
        assertThat(updated.get("description").asString()).isEqualTo("New words");
        assertThat(updated.get("version").asLong()).isEqualTo(2);
    }

    /** What only JSON can get wrong, and explicit empty values (the rest is the scenario table's). */
    static Stream<Arguments> invalidUpdates() {
        return Stream.of(
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"\", \"expectedVersion\": 1}", "update_mask"),
                Arguments.of("{\"group\": {\"name\": \"\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}", "group.name"),
                Arguments.of("{\"group\": {\"capacity\": \"lots\"}, \"updateMask\": \"capacity\", \"expectedVersion\": 1}", "group.capacity"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": [\"name\"], \"expectedVersion\": 1}", "update_mask"),
                Arguments.of("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\", \"expectedVersion\": \"v1\"}", "expected_version"),
                Arguments.of("{\"group\": {\"name\": \"ok name\", \"mood\": \"happy\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}", "group.mood"),
                Arguments.of("{\"group\": \"ok name\", \"updateMask\": \"name\", \"expectedVersion\": 1}", "group"),
                Arguments.of("{\"id\": 8, \"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}", "id"));
    }

    @ParameterizedTest
    @MethodSource("invalidUpdates")
    void updateRejectsInvalidInputAndLeavesTheRowAlone(String body, String violation) {
        String before = read("/api/v1/groups/8");
        Map<String, Object> row = SeededRows.groupRow(jdbc, 8);
        expectInvalid(patch("/api/v1/groups/8", body), violation);
        assertThat(read("/api/v1/groups/8")).isEqualTo(before);
        assertThat(SeededRows.groupRow(jdbc, 8)).isEqualTo(row);
    }

    @Test
    void updateOfNonNumericGroup() {
        String body = "{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}";
        expectInvalid(patch("/api/v1/groups/eight", body), "id");
    }

    @Test
    void updateWithMalformedJsonOrWrongContentTypeLeavesTheRowAlone() {
        String before = read("/api/v1/groups/8");
        Map<String, Object> row = SeededRows.groupRow(jdbc, 8);
        expectProblem(patch("/api/v1/groups/8", "{\"group\": {"), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(http.patch().uri("/api/v1/groups/8").contentType(MediaType.TEXT_PLAIN)
                        .body("{\"group\": {\"name\": \"ok name\"}, \"updateMask\": \"name\"}").exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(read("/api/v1/groups/8")).isEqualTo(before);
        assertThat(SeededRows.groupRow(jdbc, 8)).isEqualTo(row);
    }

    // ---- DELETE /api/v1/groups/{id} ------------------------------------------------------------

    @Test
    void deleteAnswers204WithoutABody() {
        delete("/api/v1/groups/10").expectStatus().isNoContent().expectBody().isEmpty();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM study_groups WHERE id = 10").query(Long.class).single()).isZero();
    }

    @Test
    void deleteTakesTheExpectedVersionByItsJsonNameToo() {
        patch("/api/v1/groups/12", "{\"group\": {\"name\": \"Version one\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}")
                .expectStatus().isOk();
        var before = allRows();

        expectProblem(delete("/api/v1/groups/12?expectedVersion=8"), HttpStatus.CONFLICT, "ABORTED");

        assertThat(allRows()).isEqualTo(before);
        assertThat(SeededRows.groupRow(jdbc, 12)).containsEntry("name", "Version one");
        delete("/api/v1/groups/12?expectedVersion=2").expectStatus().isNoContent();
    }

    @Test
    void deleteWithBadParametersChangesNothing() {
        var before = allRows();
        expectInvalid(delete("/api/v1/groups/abc"), "id");
        expectInvalid(delete("/api/v1/groups/12?expected_version=latest"), "expected_version");
        assertThat(allRows()).isEqualTo(before);
    }

    // ---- If-Match on PATCH and DELETE (RFC 9110 13.1.1) -----------------------------------------

    /** At version 1, as the seed leaves every group; If-Match adds to expected_version, it does not replace it. */
    private static final String RENAME = "{\"group\": {\"name\": \"Renamed if current\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}";

    /**
     * A false If-Match is 412 and nothing is done. Failed before: If-Match was ignored, so a PATCH
     * with {@code If-Match: "not-current"} was applied (200) and a DELETE performed (204).
     */
    @Test
    void aWriteWhoseIfMatchIsFalseIsRefusedAndChangesNothing() {
        String tag = tagOf("/api/v1/groups/8", MediaType.APPLICATION_JSON);
        String before = read("/api/v1/groups/8");
        Map<String, Object> row = SeededRows.groupRow(jdbc, 8);
        var rows = allRows();
        // another tag; the current one weak (If-Match compares strongly); a list of others
        for (String ifMatch : List.of("\"not-current\"", "W/" + tag, "\"other\", \"more\"")) {
            expectProblem(http.patch().uri("/api/v1/groups/8").header("If-Match", ifMatch)
                    .contentType(MediaType.APPLICATION_JSON).body(RENAME).exchange(), HttpStatus.PRECONDITION_FAILED,
                    "FAILED_PRECONDITION");
            expectProblem(http.delete().uri("/api/v1/groups/8").header("If-Match", ifMatch).exchange(),
                    HttpStatus.PRECONDITION_FAILED, "FAILED_PRECONDITION");
        }
        assertThat(SeededRows.groupRow(jdbc, 8)).isEqualTo(row);
        assertThat(allRows()).isEqualTo(rows);
        assertThat(read("/api/v1/groups/8")).isEqualTo(before);
    }

    /**
     * The tag stands for everything the group shows: a join changes it though not the version, and
     * a write conditioned on the tag read before the join is refused.
     */
    @Test
    void aTagReadBeforeAJoinNoLongerMatches() {
        String tag = tagOf("/api/v1/groups/8", MediaType.APPLICATION_JSON);
        long user = jdbc.sql("SELECT MIN(id) FROM users WHERE id NOT IN (SELECT user_id FROM group_members WHERE group_id = 8)")
                .query(Long.class).single();
        post("/api/v1/groups/8/members", "{\"userId\": " + user + "}").expectStatus().isCreated();
        Map<String, Object> row = SeededRows.groupRow(jdbc, 8);

        expectProblem(http.patch().uri("/api/v1/groups/8").header("If-Match", tag)
                .contentType(MediaType.APPLICATION_JSON).body(RENAME).exchange(), HttpStatus.PRECONDITION_FAILED,
                "FAILED_PRECONDITION");
        assertThat(SeededRows.groupRow(jdbc, 8)).isEqualTo(row);
    }

    @Test
    void aWriteWhoseIfMatchNamesTheCurrentTagOrAnyIsApplied() {
        // the JSON representation's tag, or a protobuf one's: each names the group as it is
        String json = tagOf("/api/v1/groups/8", MediaType.APPLICATION_JSON);
        http.patch().uri("/api/v1/groups/8").header("If-Match", "\"other\", " + json)
                .contentType(MediaType.APPLICATION_JSON).body(RENAME).exchange().expectStatus().isOk();
        assertThat(SeededRows.groupRow(jdbc, 8)).containsEntry("name", "Renamed if current").containsEntry("version", 2L);
        String protobuf = tagOf("/api/v1/groups/8", MediaType.parseMediaType("application/x-protobuf"));
        assertThat(protobuf).endsWith(".pb\"");
        http.patch().uri("/api/v1/groups/8").header("If-Match", protobuf).contentType(MediaType.APPLICATION_JSON)
                .body("{\"group\": {\"capacity\": 40}, \"updateMask\": \"capacity\", \"expectedVersion\": 2}").exchange().expectStatus().isOk();
        assertThat(SeededRows.groupRow(jdbc, 8)).containsEntry("capacity", 40);
        // and the standard name's, a tag of its own (the same bytes under another Content-Type)
        String standard = tagOf("/api/v1/groups/8", MediaType.parseMediaType("application/protobuf"));
        assertThat(standard).endsWith(".protobuf\"");
        http.patch().uri("/api/v1/groups/8").header("If-Match", standard).contentType(MediaType.APPLICATION_JSON)
                .body("{\"group\": {\"capacity\": 39}, \"updateMask\": \"capacity\", \"expectedVersion\": 3}").exchange().expectStatus().isOk();
        assertThat(SeededRows.groupRow(jdbc, 8)).containsEntry("capacity", 39);
        // the tag used before is stale now (412 comes before expected_version's 409)
        expectProblem(http.patch().uri("/api/v1/groups/8").header("If-Match", json)
                .contentType(MediaType.APPLICATION_JSON).body(RENAME).exchange(), HttpStatus.PRECONDITION_FAILED,
                "FAILED_PRECONDITION");
        // "*": true whenever the group exists
        http.patch().uri("/api/v1/groups/8").header("If-Match", "*").contentType(MediaType.APPLICATION_JSON)
                .body("{\"group\": {\"capacity\": 41}, \"updateMask\": \"capacity\", \"expectedVersion\": 4}").exchange().expectStatus().isOk();
        http.delete().uri("/api/v1/groups/9").header("If-Match", "*").exchange().expectStatus().isNoContent();
        // a missing group is 404 whatever the condition (RFC 9110 13.2.1: that failure comes first)
        expectProblem(http.delete().uri("/api/v1/groups/9").header("If-Match", "*").exchange(), HttpStatus.NOT_FOUND, "NOT_FOUND");
        expectProblem(http.patch().uri("/api/v1/groups/999999").header("If-Match", json)
                .contentType(MediaType.APPLICATION_JSON).body(RENAME).exchange(), HttpStatus.NOT_FOUND, "NOT_FOUND");
        // and so is an invalid request (400 before 412)
        expectInvalid(http.patch().uri("/api/v1/groups/8").header("If-Match", "\"not-current\"")
                .contentType(MediaType.APPLICATION_JSON).body("{\"group\": {\"name\": \"x y z\"}, \"updateMask\": \"\", \"expectedVersion\": 4}")
                .exchange(), "update_mask");
        // DELETE with the current tag
        String current = tagOf("/api/v1/groups/8", MediaType.APPLICATION_JSON);
        http.delete().uri("/api/v1/groups/8").header("If-Match", current).exchange().expectStatus().isNoContent();
        assertThat(count("study_groups")).isEqualTo(48);
    }

    /** Both conditions hold or nothing is done: the current tag with a stale expected_version is 409 ABORTED. */
    @Test
    void ifMatchAndExpectedVersionMustBothHold() {
        patch("/api/v1/groups/12", "{\"group\": {\"name\": \"Version one\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}")
                .expectStatus().isOk();
        String tag = tagOf("/api/v1/groups/12", MediaType.APPLICATION_JSON);
        Map<String, Object> row = SeededRows.groupRow(jdbc, 12);
        expectProblem(http.patch().uri("/api/v1/groups/12").header("If-Match", tag).contentType(MediaType.APPLICATION_JSON)
                .body("{\"group\": {\"name\": \"Version two\"}, \"updateMask\": \"name\", \"expectedVersion\": 1}")
                .exchange(), HttpStatus.CONFLICT, "ABORTED");
        expectProblem(http.delete().uri("/api/v1/groups/12?expected_version=4").header("If-Match", tag).exchange(),
                HttpStatus.CONFLICT, "ABORTED");
        assertThat(SeededRows.groupRow(jdbc, 12)).isEqualTo(row);
        http.delete().uri("/api/v1/groups/12?expected_version=2").header("If-Match", tag).exchange().expectStatus().isNoContent();
    }

    /**
     * A PATCH's 200 is the group's new representation, so it carries that representation's ETag
     * (RFC 5789 section 2): the GET after it answers the same tag, and a client can condition its next
     * write on it without reading again. Failed before: the 200 had no ETag.
     */
    @Test
    void aPatchAnswersTheTagOfTheGroupItLeft() {
        String first = http.patch().uri("/api/v1/groups/14").header("If-Match", "*").contentType(MediaType.APPLICATION_JSON)
                .body("{\"group\": {\"capacity\": 30}, \"updateMask\": \"capacity\", \"expectedVersion\": 1}").exchange().expectStatus().isOk()
                .returnResult(byte[].class).getResponseHeaders().getETag();
        assertThat(first).as("the PATCH's ETag").isNotNull().isEqualTo(tagOf("/api/v1/groups/14", MediaType.APPLICATION_JSON));

        String second = http.patch().uri("/api/v1/groups/14").header("If-Match", first)
                .accept(MediaType.parseMediaType("application/x-protobuf")).contentType(MediaType.APPLICATION_JSON)
                .body("{\"group\": {\"capacity\": 31}, \"updateMask\": \"capacity\", \"expectedVersion\": 2}").exchange().expectStatus().isOk()
                .returnResult(byte[].class).getResponseHeaders().getETag();
        assertThat(SeededRows.groupRow(jdbc, 14)).containsEntry("capacity", 31);
        // the representation the answer was given in, as a GET's
        assertThat(second).endsWith(".pb\"").isEqualTo(tagOf("/api/v1/groups/14", MediaType.parseMediaType("application/x-protobuf")));
        // and a write answered by anything but the group's own representation has none
        long user = jdbc.sql("SELECT MIN(id) FROM users WHERE id NOT IN (SELECT user_id FROM group_members WHERE group_id = 14)")
                .query(Long.class).single();
        assertThat(post("/api/v1/groups/14/members", "{\"userId\": " + user + "}").expectStatus().isCreated()
                .returnResult(byte[].class).getResponseHeaders().getETag()).isNull();
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** VALID_GROUP with one field replaced by a raw JSON value. */
    private String group(String field, String rawJsonValue) {
        ObjectNode body = (ObjectNode) json.readTree(VALID_GROUP);
        body.set(field, json.readTree(rawJsonValue));
        return json.writeValueAsString(body);
    }

    /** The ETag a GET of {@code path} answers in {@code representation}. */
    private String tagOf(String path, MediaType representation) {
        return http.get().uri(path).accept(representation).exchange().expectStatus().isOk()
                .returnResult(byte[].class).getResponseHeaders().getETag();
    }
}
