package dev.tandem.rest.group;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JoinGroup, LeaveGroup, RateGroup and ScheduleSession as only HTTP shows them: 201 with Location,
 * 204 without a body, JSON parsing (numbers as strings, proto field names, unknown fields, wrong
 * types, RFC 3339 times), path variables, malformed bodies and content types. What both wires must
 * answer alike (conflicts, NOT_FOUND, invalid fields, read-back) is the scenario table in
 * system-tests (WireScenarios); concurrency is GroupServiceTest's.
 */
class SubresourcesRestTest extends RestIntegrationTest {

    // ---- members -------------------------------------------------------------------------------

    @Test
    void joinAnswers201WithLocation() {
        long group = newGroup(10);
        EntityExchangeResult<String> joined = post("/api/v1/groups/{g}/members", "{\"userId\": 2}", group)
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();
        assertThat(joined.getResponseHeaders().getLocation()).hasToString("/api/v1/groups/" + group + "/members/2");
    }

    @Test
    void joinAcceptsTheUserIdAsAStringAndByItsProtoName() {
        long group = newGroup(10);
        post("/api/v1/groups/{g}/members", "{\"userId\": \"2\"}", group).expectStatus().isCreated();
        post("/api/v1/groups/{g}/members", "{\"user_id\": 3}", group).expectStatus().isCreated();
        assertThat(memberCount(group)).isEqualTo(3);
    }

    @Test
    void joinRejectsMalformedReferencesAndBodies() {
        long group = newGroup(10);
        var before = allRows();

        expectInvalid(post("/api/v1/groups/abc/members", "{\"userId\": 2}"), "group_id");
        expectInvalid(post("/api/v1/groups/{g}/members", "{\"userId\": \"two\"}", group), "user_id");
        expectInvalid(post("/api/v1/groups/{g}/members", "{\"userId\": 2, \"role\": \"admin\"}", group), "role");
        expectProblem(post("/api/v1/groups/{g}/members", "{\"userId\": ", group), HttpStatus.BAD_REQUEST,
                "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups/{g}/members", group).contentType(MediaType.TEXT_PLAIN)
                .body("{\"userId\": 2}").exchange(), HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");

        assertThat(allRows()).isEqualTo(before);
    }

    @Test
    void leaveAnswers204WithoutABody() {
        long group = newGroup(10);
        post("/api/v1/groups/{g}/members", "{\"userId\": 2}", group).expectStatus().isCreated();

        delete("/api/v1/groups/{g}/members/2", group).expectStatus().isNoContent().expectBody().isEmpty();
        assertThat(memberCount(group)).isEqualTo(1);
    }

    @Test
    void leaveRejectsMalformedIds() {
        var before = allRows();
        expectInvalid(delete("/api/v1/groups/1/members/two"), "user_id");
        expectInvalid(delete("/api/v1/groups/one/members/2"), "group_id");
        assertThat(allRows()).isEqualTo(before);
    }

    // ---- ratings -------------------------------------------------------------------------------

    @Test
    void rateAnswers201WithLocation() {
        long user = unratedUser(1);
        EntityExchangeResult<String> rated = post("/api/v1/groups/1/ratings", """
                {"userId": %d, "stars": 5, "comment": "Great explanations"}
                """.formatted(user))
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();
        assertThat(rated.getResponseHeaders().getLocation()).hasToString("/api/v1/groups/1/ratings/" + user);
    }

    @Test
    void ratingFieldsOnlyJsonCanGetWrongAreNamedAndNothingIsStored() {
        long user = unratedUser(4);
        var before = allRows();

        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": 0}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": \"five\"}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": 4.5}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": 3, \"weight\": 2}".formatted(user)),
                "weight");
        expectInvalid(post("/api/v1/groups/four/ratings", "{\"userId\": %d, \"stars\": 3}".formatted(user)), "group_id");
        expectProblem(post("/api/v1/groups/4/ratings", "{\"stars\": 3"), HttpStatus.BAD_REQUEST,
                "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups/4/ratings").contentType(MediaType.APPLICATION_XML)
                .body("<rating/>").exchange(), HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");

        assertThat(allRows()).isEqualTo(before);
    }

    // ---- sessions ------------------------------------------------------------------------------

    @Test
    void scheduleAnswers201WithLocationAndTheSessionInUtcWhichBecomesTheNextOne() {
        // 2029 is before every seeded session (they start in 2030), so this one is the group's next.
        EntityExchangeResult<String> scheduled = post("/api/v1/groups/1/sessions", """
                {"topic": "Graphs", "startTime": "2029-06-01T18:30:00+02:00", "durationMinutes": 90, "location": "Lab B"}
                """)
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();

        JsonNode session = json.readTree(scheduled.getResponseBody());
        long id = session.get("id").asLong();
        assertThat(session.get("groupId").asLong()).isEqualTo(1);
        assertThat(session.get("topic").asString()).isEqualTo("Graphs");
        assertThat(session.get("startTime").asString()).as("normalised to UTC").isEqualTo("2029-06-01T16:30:00Z");
        assertThat(session.get("durationMinutes").asInt()).isEqualTo(90);
        assertThat(session.get("location").asString()).isEqualTo("Lab B");
        assertThat(scheduled.getResponseHeaders().getLocation()).hasToString("/api/v1/groups/1/sessions/" + id);

        JsonNode next = readJson("/api/v1/groups/1").get("nextSessions").get(0);
        assertThat(next).isEqualTo(session);
    }

    @Test
    void scheduleAcceptsProtoFieldNames() {
        post("/api/v1/groups/2/sessions", """
                {"topic": "Snake", "start_time": "2031-01-01T00:00:00.5Z", "duration_minutes": "60"}
                """).expectStatus().isCreated();
    }

    static Stream<Arguments> sessionsOnlyJsonCanGetWrong() {
        String ok = "\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 60";
        return Stream.of(
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": \"an hour\"}", "duration_minutes"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"tomorrow\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01 00:00:00\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00\", \"durationMinutes\": 60}", "start_time"),
                // No such hour, day or month: protobuf's parser rolled each over (99:00 into 2031-01-05T03:00Z,
                // February 30 into March 2), and the session was scheduled then.
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T99:00:00Z\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T18:60:00Z\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-02-30T18:00:00Z\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-13-01T18:00:00Z\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{" + ok + ", \"room\": 12}", "room"));
    }

    @ParameterizedTest
    @MethodSource("sessionsOnlyJsonCanGetWrong")
    void sessionFieldsOnlyJsonCanGetWrongAreNamedAndNothingIsStored(String body, String violation) {
        var before = allRows();
        expectInvalid(post("/api/v1/groups/3/sessions", body), violation);
        assertThat(allRows()).isEqualTo(before);
    }

    @Test
    void scheduleRejectsAMalformedGroupAndUnreadableBodies() {
        String body = "{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 60}";
        var before = allRows();
        expectInvalid(post("/api/v1/groups/x/sessions", body), "group_id");
        expectProblem(post("/api/v1/groups/3/sessions", "{\"topic\": "), HttpStatus.BAD_REQUEST,
                "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups/3/sessions").contentType(MediaType.TEXT_PLAIN).body(body).exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(allRows()).isEqualTo(before);
    }

    /** A group owned by user 1, so users 2 and up are not yet members. */
    private long newGroup(int capacity) {
        return bodyOf(post("/api/v1/groups", """
                {"name": "Membership test", "subject": "statistics", "capacity": %d, "ownerId": 1}
                """.formatted(capacity)).expectStatus().isCreated()).get("id").asLong();
    }

    private long unratedUser(long groupId) {
        return jdbc.sql("SELECT MIN(id) FROM users WHERE id NOT IN (SELECT user_id FROM ratings WHERE group_id = ?)")
                .param(groupId).query(Long.class).single();
    }
}
