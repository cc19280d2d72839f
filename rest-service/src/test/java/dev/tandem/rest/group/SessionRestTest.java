package dev.tandem.rest.group;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** ScheduleSession over HTTP: RFC 3339 start times, durations 15 to 480 minutes. */
class SessionRestTest extends RestIntegrationTest {

    @Test
    void scheduleAnswers201WithLocationAndTheSessionWhichBecomesTheNextOne() {
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

    @ParameterizedTest
    @ValueSource(ints = {15, 480})
    void durationBoundsAreInclusiveAndLocationOptional(int minutes) {
        post("/api/v1/groups/2/sessions", """
                {"topic": "Bounds", "startTime": "2031-01-01T00:00:00Z", "durationMinutes": %d}
                """.formatted(minutes))
                .expectStatus().isCreated()
                .expectBody().jsonPath("$.location").isEqualTo("");
    }

    @Test
    void acceptsProtoFieldNames() {
        post("/api/v1/groups/2/sessions", """
                {"topic": "Snake", "start_time": "2031-01-01T00:00:00.5Z", "duration_minutes": "60"}
                """).expectStatus().isCreated();
    }

    static Stream<Arguments> invalidSessions() {
        String ok = "\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 60";
        return Stream.of(
                Arguments.of("{\"topic\": \"\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 60}", "topic"),
                Arguments.of("{\"topic\": \"  \", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 60}", "topic"),
                Arguments.of("{\"topic\": \"" + repeat('t', 201) + "\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 60}", "topic"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 14}", "duration_minutes"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 481}", "duration_minutes"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\"}", "duration_minutes"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": \"an hour\"}", "duration_minutes"),
                Arguments.of("{\"topic\": \"T\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"tomorrow\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01 00:00:00\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{\"topic\": \"T\", \"startTime\": \"2020-01-01T00:00:00Z\", \"durationMinutes\": 60}", "start_time"),
                Arguments.of("{" + ok + ", \"location\": \"" + repeat('l', 201) + "\"}", "location"),
                Arguments.of("{" + ok + ", \"room\": 12}", "room"));
    }

    @ParameterizedTest
    @MethodSource("invalidSessions")
    void invalidFieldsAreNamedAndNothingIsStored(String body, String violation) {
        List<Long> before = allCounts();
        expectInvalid(post("/api/v1/groups/3/sessions", body), violation);
        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void unknownOrMalformedGroupAndUnreadableBodies() {
        String body = "{\"topic\": \"T\", \"startTime\": \"2031-01-01T00:00:00Z\", \"durationMinutes\": 60}";
        List<Long> before = allCounts();
        expectProblem(post("/api/v1/groups/9999/sessions", body), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("group");
        expectInvalid(post("/api/v1/groups/x/sessions", body), "group_id");
        expectProblem(post("/api/v1/groups/3/sessions", "{\"topic\": "), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups/3/sessions").contentType(MediaType.TEXT_PLAIN).body(body).exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(allCounts()).isEqualTo(before);
    }
}
