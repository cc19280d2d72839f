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

/** GetGroup, ListGroups (with its page tokens) and GetLeaderboard over HTTP. */
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
        assertThat(group.get("version").asLong()).isZero();
        // Timestamps are RFC 3339 strings, as protobuf's JSON mapping writes them.
        assertThat(group.get("createTime").asString()).isEqualTo("2026-01-01T01:00:00Z");
        JsonNode sessions = group.get("nextSessions");
        assertThat(sessions.isArray()).isTrue();
        assertThat(sessions.size()).isBetween(1, 3);
        assertThat(sessions.get(0).get("startTime").asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(sessions.get(0).get("groupId").asLong()).isEqualTo(1);
    }

    @Test
    void unknownGroupIsNotFoundNamingTheResource() {
        expectProblem(get("/api/v1/groups/9999"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("group")
                .jsonPath("$.resource.name").isEqualTo("9999")
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

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 1000})
    void walkingOneSubjectPageByPageReturnsEachOfItsGroupsOnceInOrder(int pageSize) {
        // More groups in one subject than the seed has, so that size 7 needs several pages too.
        for (int i = 0; i < 12; i++) {
            post("/api/v1/groups", """
                    {"name": "Extra physics %d", "subject": "physics", "capacity": 5, "ownerId": 1}
                    """.formatted(i)).expectStatus().isCreated();
        }
        List<Long> expected = jdbc.sql("SELECT id FROM study_groups WHERE subject = 'physics' ORDER BY id")
                .query(Long.class).list();
        assertThat(expected).hasSize(17);

        assertThat(walk("physics", pageSize, "page_size", "page_token")).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 1000})
    void walkingAllGroupsReturnsEachOnceInOrder(int pageSize) {
        List<Long> expected = jdbc.sql("SELECT id FROM study_groups ORDER BY id").query(Long.class).list();
        assertThat(walk("", pageSize, "page_size", "page_token")).isEqualTo(expected);
    }

    @Test
    void camelCaseQueryParametersWorkAsWell() {
        List<Long> expected = jdbc.sql("SELECT id FROM study_groups WHERE subject = 'biology' ORDER BY id")
                .query(Long.class).list();
        assertThat(walk("biology", 2, "pageSize", "pageToken")).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "1001", "2147483647"})
    void pageSizeOutOfRangeIsInvalid(String pageSize) {
        expectInvalid(get("/api/v1/groups?page_size={n}", pageSize), "page_size");
    }

    @Test
    void pageSizeZeroMeansTheDefault() {
        assertThat(ids(readJson("/api/v1/groups?page_size=0"))).hasSize(20);
    }

    @Test
    void nonNumericPageSizeIsInvalidNamingTheParameterAsSent() {
        expectInvalid(get("/api/v1/groups?page_size=ten"), "page_size");
        expectInvalid(get("/api/v1/groups?pageSize=ten"), "pageSize");
        expectInvalid(get("/api/v1/groups?page_size=99999999999"), "page_size");
    }

    @ParameterizedTest
    @ValueSource(strings = {"not-a-token!", "AAAA", "CgdwaHlzaWNzEAA", "%%%"})
    void malformedPageTokenIsInvalid(String token) {
        expectInvalid(get("/api/v1/groups?subject=physics&page_token={t}", token), "page_token");
    }

    @Test
    void pageTokenOfAnotherSubjectIsInvalid() {
        String physicsToken = readJson("/api/v1/groups?subject=physics&page_size=1").get("nextPageToken").asString();
        assertThat(physicsToken).isNotEmpty();

        expectInvalid(get("/api/v1/groups?subject=biology&page_size=1&page_token={t}", physicsToken), "page_token");
        expectInvalid(get("/api/v1/groups?page_size=1&page_token={t}", physicsToken), "page_token");
        // The same token with its own subject still works.
        assertThat(ids(readJson("/api/v1/groups?subject=physics&page_size=1&page_token={t}", physicsToken)))
                .containsExactly(19L);
    }

    @Test
    void overlongSubjectIsInvalid() {
        expectInvalid(get("/api/v1/groups?subject={s}", repeat('a', 51)), "subject");
    }

    @Test
    void unknownSubjectIsAnEmptyLastPage() {
        JsonNode page = readJson("/api/v1/groups?subject=astrology");
        assertThat(page.get("groups").size()).isZero();
        assertThat(page.get("nextPageToken").asString()).isEmpty();
    }

    // ---- GET /api/v1/leaderboard ---------------------------------------------------------------

    @Test
    void leaderboardListsTheBestRatedGroupsBestFirst() {
        JsonNode board = readJson("/api/v1/leaderboard");
        assertThat(board.get("subject").asString()).isEmpty();
        List<Double> averages = new ArrayList<>();
        board.get("groups").forEach(g -> averages.add(g.get("averageRating").asDouble()));
        assertThat(averages).hasSize(10).isSortedAccordingTo((a, b) -> Double.compare(b, a));
        Double best = jdbc.sql("SELECT MAX(a) FROM (SELECT ROUND(AVG(stars), 2) AS a FROM ratings GROUP BY group_id) t")
                .query(Double.class).single();
        assertThat(averages.getFirst()).isEqualTo(best);
    }

    @Test
    void leaderboardOfOneSubjectHoldsOnlyThatSubject() {
        JsonNode board = readJson("/api/v1/leaderboard?subject=physics&limit=3");
        assertThat(board.get("subject").asString()).isEqualTo("physics");
        assertThat(board.get("groups").size()).isEqualTo(3);
        board.get("groups").forEach(g -> assertThat(g.get("subject").asString()).isEqualTo("physics"));
    }

    @Test
    void leaderboardLimitIsValidated() {
        long rated = jdbc.sql("SELECT COUNT(DISTINCT group_id) FROM ratings").query(Long.class).single();
        assertThat(readJson("/api/v1/leaderboard?limit=100").get("groups").size()).isEqualTo((int) Math.min(rated, 100));
        expectInvalid(get("/api/v1/leaderboard?limit=101"), "limit");
        expectInvalid(get("/api/v1/leaderboard?limit=-1"), "limit");
        expectInvalid(get("/api/v1/leaderboard?limit=ten"), "limit");
        expectInvalid(get("/api/v1/leaderboard?subject={s}", repeat('a', 51)), "subject");
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
