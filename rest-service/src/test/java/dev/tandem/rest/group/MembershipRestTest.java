package dev.tandem.rest.group;

import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.Concurrently;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/** JoinGroup and LeaveGroup over HTTP: conflicts, capacity under concurrency, nothing changed on rejection. */
class MembershipRestTest extends RestIntegrationTest {

    @Test
    void joinAnswers201WithLocationAndTheMembership() {
        long group = newGroup(10);
        EntityExchangeResult<String> joined = post("/api/v1/groups/{g}/members", "{\"userId\": 2}", group)
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();

        JsonNode membership = json.readTree(joined.getResponseBody());
        assertThat(membership.get("groupId").asLong()).isEqualTo(group);
        assertThat(membership.get("userId").asLong()).isEqualTo(2);
        assertThat(membership.get("joinTime").asString()).isNotEmpty();
        assertThat(joined.getResponseHeaders().getLocation()).hasToString("/api/v1/groups/" + group + "/members/2");
        assertThat(memberCount(group)).isEqualTo(2);
        assertThat(readJson("/api/v1/groups/{g}", group).get("memberCount").asInt()).isEqualTo(2);
    }

    @Test
    void joinAcceptsTheUserIdAsAStringAndByItsProtoName() {
        long group = newGroup(10);
        post("/api/v1/groups/{g}/members", "{\"userId\": \"2\"}", group).expectStatus().isCreated();
        post("/api/v1/groups/{g}/members", "{\"user_id\": 3}", group).expectStatus().isCreated();
        assertThat(memberCount(group)).isEqualTo(3);
    }

    @Test
    void secondJoinIsAlreadyExistsAndAddsNoRow() {
        long group = newGroup(10);
        post("/api/v1/groups/{g}/members", "{\"userId\": 2}", group).expectStatus().isCreated();
        List<Long> before = allCounts();

        expectProblem(post("/api/v1/groups/{g}/members", "{\"userId\": 2}", group), HttpStatus.CONFLICT, "ALREADY_EXISTS")
                .jsonPath("$.resource.type").isEqualTo("membership");
        // The owner is a member already, too.
        expectProblem(post("/api/v1/groups/{g}/members", "{\"userId\": 1}", group), HttpStatus.CONFLICT, "ALREADY_EXISTS");
        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void joiningAFullGroupIsAFailedPrecondition() {
        long group = newGroup(2);
        post("/api/v1/groups/{g}/members", "{\"userId\": 2}", group).expectStatus().isCreated();
        List<Long> before = allCounts();

        expectProblem(post("/api/v1/groups/{g}/members", "{\"userId\": 3}", group), HttpStatus.CONFLICT,
                "FAILED_PRECONDITION");
        assertThat(allCounts()).isEqualTo(before);
        assertThat(memberCount(group)).isEqualTo(2);
    }

    @Test
    void concurrentJoinsNeverExceedTheCapacity() throws InterruptedException {
        long group = newGroup(5);
        List<Callable<EntityExchangeResult<String>>> joins = new ArrayList<>();
        for (long user = 10; user < 22; user++) {
            String body = "{\"userId\": %d}".formatted(user);
            joins.add(() -> post("/api/v1/groups/{g}/members", body, group).expectBody(String.class).returnResult());
        }

        List<Object> outcomes = Concurrently.run(joins);

        int created = 0;
        for (Object outcome : outcomes) {
            assertThat(outcome).isInstanceOf(EntityExchangeResult.class);
            EntityExchangeResult<?> result = (EntityExchangeResult<?>) outcome;
            if (result.getStatus().value() == 201) {
                created++;
            } else {
                assertThat(result.getStatus().value()).isEqualTo(409);
                assertThat(json.readTree((String) result.getResponseBody()).get("code").asString())
                        .isEqualTo("FAILED_PRECONDITION");
            }
        }
        assertThat(created).isEqualTo(4);
        assertThat(memberCount(group)).isEqualTo(5);
    }

    @Test
    void joinRejectsUnknownAndMalformedReferences() {
        long group = newGroup(10);
        List<Long> before = allCounts();

        expectProblem(post("/api/v1/groups/9999/members", "{\"userId\": 2}"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("group");
        expectProblem(post("/api/v1/groups/{g}/members", "{\"userId\": 4242}", group), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("user");
        expectInvalid(post("/api/v1/groups/abc/members", "{\"userId\": 2}"), "group_id");
        expectInvalid(post("/api/v1/groups/{g}/members", "{\"userId\": \"two\"}", group), "user_id");
        expectInvalid(post("/api/v1/groups/{g}/members", "{\"userId\": 2, \"role\": \"admin\"}", group), "role");
        expectProblem(post("/api/v1/groups/{g}/members", "{\"userId\": ", group), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/groups/{g}/members", group).contentType(MediaType.TEXT_PLAIN)
                .body("{\"userId\": 2}").exchange(), HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");

        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void leaveAnswers204AndRemovesTheMembership() {
        long group = newGroup(10);
        post("/api/v1/groups/{g}/members", "{\"userId\": 2}", group).expectStatus().isCreated();

        delete("/api/v1/groups/{g}/members/2", group).expectStatus().isNoContent().expectBody().isEmpty();

        assertThat(memberCount(group)).isEqualTo(1);
        expectProblem(delete("/api/v1/groups/{g}/members/2", group), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("membership");
    }

    @Test
    void theOwnerCannotLeave() {
        long group = newGroup(10);
        List<Long> before = allCounts();
        expectProblem(delete("/api/v1/groups/{g}/members/1", group), HttpStatus.CONFLICT, "FAILED_PRECONDITION");
        assertThat(allCounts()).isEqualTo(before);
    }

    @Test
    void leaveRejectsUnknownAndMalformedIds() {
        List<Long> before = allCounts();
        expectProblem(delete("/api/v1/groups/9999/members/2"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("group");
        expectInvalid(delete("/api/v1/groups/1/members/two"), "user_id");
        expectInvalid(delete("/api/v1/groups/one/members/2"), "group_id");
        assertThat(allCounts()).isEqualTo(before);
    }

    /** A group owned by user 1, so users 2 and up are not yet members. */
    private long newGroup(int capacity) {
        return bodyOf(post("/api/v1/groups", """
                {"name": "Membership test", "subject": "statistics", "capacity": %d, "ownerId": 1}
                """.formatted(capacity)).expectStatus().isCreated()).get("id").asLong();
    }
}
