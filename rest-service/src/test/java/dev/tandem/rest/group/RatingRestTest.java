package dev.tandem.rest.group;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** RateGroup over HTTP: one rating per user and group, stars 1 to 5. */
class RatingRestTest extends RestIntegrationTest {

    @Test
    void rateAnswers201WithLocationAndTheRating() {
        long user = unratedUser(1);
        int ratingsBefore = readJson("/api/v1/groups/1").get("ratingCount").asInt();

        EntityExchangeResult<String> rated = post("/api/v1/groups/1/ratings", """
                {"userId": %d, "stars": 5, "comment": "Great explanations"}
                """.formatted(user))
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();

        JsonNode rating = json.readTree(rated.getResponseBody());
        assertThat(rating.get("groupId").asLong()).isEqualTo(1);
        assertThat(rating.get("userId").asLong()).isEqualTo(user);
        assertThat(rating.get("stars").asInt()).isEqualTo(5);
        assertThat(rating.get("comment").asString()).isEqualTo("Great explanations");
        assertThat(rating.get("createTime").asString()).isNotEmpty();
        assertThat(rated.getResponseHeaders().getLocation()).hasToString("/api/v1/groups/1/ratings/" + user);
        assertThat(readJson("/api/v1/groups/1").get("ratingCount").asInt()).isEqualTo(ratingsBefore + 1);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5})
    void starsBoundsAreInclusiveAndTheCommentOptional(int stars) {
        post("/api/v1/groups/2/ratings", "{\"userId\": %d, \"stars\": %d}".formatted(unratedUser(2), stars))
                .expectStatus().isCreated()
                .expectBody().jsonPath("$.comment").isEqualTo("");
    }

    @Test
    void aSecondRatingBySameUserIsAlreadyExistsAndKeepsTheFirst() {
        long user = unratedUser(3);
        post("/api/v1/groups/3/ratings", "{\"userId\": %d, \"stars\": 4}".formatted(user)).expectStatus().isCreated();
        String groupBefore = read("/api/v1/groups/3");
        List<Long> before = allCounts();

        expectProblem(post("/api/v1/groups/3/ratings", "{\"userId\": %d, \"stars\": 1}".formatted(user)),
                HttpStatus.CONFLICT, "ALREADY_EXISTS")
                .jsonPath("$.resource.type").isEqualTo("rating")
                .jsonPath("$.resource.name").isEqualTo("3/" + user);

        assertThat(allCounts()).isEqualTo(before);
        assertThat(read("/api/v1/groups/3")).isEqualTo(groupBefore);
        assertThat(jdbc.sql("SELECT stars FROM ratings WHERE group_id = 3 AND user_id = ?").param(user)
                .query(Integer.class).single()).isEqualTo(4);
    }

    @Test
    void invalidFieldsAreNamedAndNothingIsStored() {
        long user = unratedUser(4);
        List<Long> before = allCounts();

        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": 0}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": 6}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": \"five\"}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": 4.5}".formatted(user)), "stars");
        expectInvalid(post("/api/v1/groups/4/ratings",
                "{\"userId\": %d, \"stars\": 3, \"comment\": \"%s\"}".formatted(user, repeat('c', 501))), "comment");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"stars\": 3}"), "user_id");
        expectInvalid(post("/api/v1/groups/4/ratings", "{\"userId\": %d, \"stars\": 3, \"weight\": 2}".formatted(user)),
                "weight");
        expectInvalid(post("/api/v1/groups/four/ratings", "{\"userId\": %d, \"stars\": 3}".formatted(user)), "group_id");
        expectProblem(post("/api/v1/groups/4/ratings", "{\"stars\": 3"), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups/4/ratings").contentType(MediaType.APPLICATION_XML)
                .body("<rating/>").exchange(), HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");

        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void unknownGroupOrUserIsNotFound() {
        List<Long> before = allCounts();
        expectProblem(post("/api/v1/groups/9999/ratings", "{\"userId\": 1, \"stars\": 3}"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("group");
        expectProblem(post("/api/v1/groups/4/ratings", "{\"userId\": 4242, \"stars\": 3}"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("user");
        assertThat(allCounts()).isEqualTo(before);
    }

    private long unratedUser(long groupId) {
        return jdbc.sql("SELECT MIN(id) FROM users WHERE id NOT IN (SELECT user_id FROM ratings WHERE group_id = ?)")
                .param(groupId).query(Long.class).single();
    }
}
