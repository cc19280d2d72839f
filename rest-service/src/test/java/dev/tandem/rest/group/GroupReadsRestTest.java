package dev.tandem.rest.group;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * GetGroup, ListGroups and GetLeaderboard as only HTTP shows them: proto JSON names, query
 * parameters (omitted, camelCase, non-numeric), path-variable parsing, problem instance. What both
 * wires must answer alike is the scenario table in system-tests (WireScenarios).
 */
class GroupReadsRestTest extends RestIntegrationTest {

    // ---- GET /api/v1/groups/{id} ---------------------------------------------------------------

    @Test
    void getGroupAnswersTheReadModelWithProtoJsonNames() {
        JsonNode group = bodyOf(get("/api/v1/groups/1").expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON));

        assertThat(group.get("id").asLong()).isEqualTo(1);
        assertThat(group.get("name").asString()).isEqualTo("Algorithms circle 1");
        assertThat(group.get("subject").asString()).isEqualTo("algorithms");
        assertThat(group.get("description").asString()).isEqualTo("Weekly algorithms study group #1");
        long owner = jdbc.sql("SELECT owner_id FROM study_groups WHERE id = 1").query(Long.class).single();
        assertThat(group.get("ownerId").asLong()).isEqualTo(owner);
        assertThat(group.get("ownerName").asString())
                .isEqualTo(jdbc.sql("SELECT name FROM users WHERE id = ?").param(owner).query(String.class).single());
        assertThat(group.get("memberCount").asLong()).isEqualTo(memberCount(1));
        assertThat(group.get("ratingCount").asLong())
                .isEqualTo(jdbc.sql("SELECT COUNT(*) FROM ratings WHERE group_id = 1").query(Long.class).single());
        assertThat(group.get("averageRating").isNumber()).isTrue();
        assertThat(group.get("version").asLong()).isEqualTo(1);
        // Timestamps are RFC 3339 strings, as protobuf's JSON mapping writes them.
        assertThat(group.get("createTime").asString()).isEqualTo("2026-01-01T01:00:00Z");
        JsonNode sessions = group.get("nextSessions");
        assertThat(sessions.isArray()).isTrue();
        assertThat(sessions.size()).isBetween(1, 3);
        assertThat(sessions.get(0).get("startTime").asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(sessions.get(0).get("groupId").asLong()).isEqualTo(1);
    }

    @Test
    void unknownGroupIsNotFoundNamingTheInstance() {
        expectProblem(get("/api/v1/groups/9999"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.instance").isEqualTo("/api/v1/groups/9999");
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "1.5", "99999999999999999999"})
    void nonNumericOrOverflowingIdIsInvalidNamingId(String id) {
        expectInvalid(get("/api/v1/groups/{id}", id), "id");
    }

    // ---- GET /api/v1/groups --------------------------------------------------------------------

    @Test
    void listWithoutParametersAnswersTheFirstPageOfTwentyInIdOrder() {
        JsonNode page = readJson("/api/v1/groups");
        List<Long> ids = ids(page);
        assertThat(ids).hasSize(20).isSorted();
        assertThat(ids.getFirst()).isEqualTo(1);
        assertThat(page.get("nextPageToken").asString()).isNotEmpty();
        JsonNode first = page.get("groups").get(0);
        assertThat(first.get("memberCount").asLong()).isEqualTo(memberCount(1));
        assertThat(first.has("averageRating")).isTrue();
        assertThat(first.has("capacity")).isTrue();
    }

    @Test
    void camelCaseQueryParametersWorkAsWell() {
        List<Long> expected = jdbc.sql("SELECT id FROM study_groups WHERE subject = 'biology' ORDER BY id")
                .query(Long.class).list();
        assertThat(walk("biology", 2, "pageSize", "pageToken")).isEqualTo(expected);
    }

    @Test
    void nonNumericPageSizeIsInvalidNamingTheParameterAsSent() {
        expectInvalid(get("/api/v1/groups?page_size=ten"), "page_size");
        expectInvalid(get("/api/v1/groups?pageSize=ten"), "pageSize");
        expectInvalid(get("/api/v1/groups?page_size=99999999999"), "page_size");
    }

    /**
     * A parameter sent twice, number or text, is refused for that, showing the values sent. Failed
     * before for a number: it showed the Java array ("got '[Ljava.lang.String;@1a2b3c'"); for text:
     * "subject: must be empty (every subject) or a subject: ...", the values joined into "algorithms,biology".
     */
    @Test
    void aParameterSentTwiceIsInvalidShowingBothValues() {
        expectInvalid(get("/api/v1/groups?page_size=1&page_size=2"), "page_size")
                .jsonPath("$.fieldViolations[0].description")
                .isEqualTo("must be given once, got 2 values: '1', '2'");
        expectInvalid(get("/api/v1/groups?subject=algorithms&subject=biology"), "subject")
                .jsonPath("$.fieldViolations[0].description")
                .isEqualTo("must be given once, got 2 values: 'algorithms', 'biology'");
        expectInvalid(get("/api/v1/leaderboard?subject=algorithms&limit=1&subject=algorithms"), "subject");
    }

    /**
     * A parameter under both its spellings is one parameter given twice, named by its proto name.
     * Failed before: page_size=5&pageSize=900 paged by 5, and page_size=5&pageSize=abc was refused
     * for pageSize alone.
     */
    @Test
    void aParameterSentUnderBothItsNamesIsInvalidShowingBothValues() {
        expectInvalid(get("/api/v1/groups?page_size=5&pageSize=900"), "page_size")
                .jsonPath("$.fieldViolations[0].description")
                .isEqualTo("must be given once (as page_size or pageSize), got 2 values: '5', '900'");
        expectInvalid(get("/api/v1/groups?pageSize=abc&page_size=5"), "page_size")
                .jsonPath("$.fieldViolations[0].description")
                .isEqualTo("must be given once (as page_size or pageSize), got 2 values: '5', 'abc'");
    }

    // ---- GET /api/v1/leaderboard ---------------------------------------------------------------

    @Test
    void nonNumericLeaderboardLimitIsInvalid() {
        expectInvalid(get("/api/v1/leaderboard?limit=ten"), "limit");
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** Every id of a subject, page by page, checking that only the last page is short. */
    private List<Long> walk(String subject, int pageSize, String sizeParam, String tokenParam) {
        List<Long> ids = new ArrayList<>();
        String token = "";
        for (int pages = 0; pages <= 100; pages++) {
            JsonNode page = readJson("/api/v1/groups?subject={s}&" + sizeParam + "={n}&" + tokenParam + "={t}",
                    subject, pageSize, token);
            List<Long> pageIds = ids(page);
            ids.addAll(pageIds);
            token = page.get("nextPageToken").asString();
            if (token.isEmpty()) {
                assertThat(pageIds.size()).isLessThanOrEqualTo(pageSize);
                return ids;
            }
            assertThat(pageIds).hasSize(pageSize);
        }
        return fail("ListGroups did not reach a last page");
    }

    private static List<Long> ids(JsonNode page) {
        List<Long> ids = new ArrayList<>();
        page.get("groups").forEach(g -> ids.add(g.get("id").asLong()));
        return ids;
    }
}
