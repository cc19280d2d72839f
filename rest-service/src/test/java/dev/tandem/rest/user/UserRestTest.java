package dev.tandem.rest.user;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import tools.jackson.databind.JsonNode;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** CreateUser and GetUser over HTTP. */
class UserRestTest extends RestIntegrationTest {

    @Test
    void createAnswers201WithLocationAndGetReadsItBack() {
        EntityExchangeResult<String> created = post("/api/v1/users", """
                {"name": "Grace Hopper", "email": "grace@example.test"}
                """)
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();

        JsonNode user = json.readTree(created.getResponseBody());
        long id = user.get("id").asLong();
        assertThat(id).isEqualTo(101);
        assertThat(user.get("name").asString()).isEqualTo("Grace Hopper");
        assertThat(user.get("email").asString()).isEqualTo("grace@example.test");
        assertThat(user.get("createTime").asString()).isNotEmpty();
        assertThat(created.getResponseHeaders().getLocation()).hasToString("/api/v1/users/" + id);
        assertThat(readJson("/api/v1/users/{id}", id)).isEqualTo(user);
    }

    @Test
    void getSeededUser() {
        JsonNode user = readJson("/api/v1/users/1");
        assertThat(user.get("id").asLong()).isEqualTo(1);
        assertThat(user.get("email").asString()).isEqualTo("user1@example.test");
        assertThat(user.get("createTime").asString()).isEqualTo("2026-01-01T00:01:00Z");
    }

    @Test
    void duplicateEmailIsAlreadyExistsAndStoresNothing() {
        long users = count("users");
        expectProblem(post("/api/v1/users", "{\"name\": \"Copy\", \"email\": \"user1@example.test\"}"),
                HttpStatus.CONFLICT, "ALREADY_EXISTS")
                .jsonPath("$.resource.type").isEqualTo("user")
                .jsonPath("$.resource.name").isEqualTo("user1@example.test");
        assertThat(count("users")).isEqualTo(users);
    }

    static Stream<Arguments> invalidUsers() {
        return Stream.of(
                Arguments.of("{\"name\": \"\", \"email\": \"a@example.test\"}", "name"),
                Arguments.of("{\"name\": \"" + repeat('n', 101) + "\", \"email\": \"a@example.test\"}", "name"),
                Arguments.of("{\"email\": \"a@example.test\"}", "name"),
                Arguments.of("{\"name\": \"Ann\", \"email\": \"not-an-email\"}", "email"),
                Arguments.of("{\"name\": \"Ann\", \"email\": \"\"}", "email"),
                Arguments.of("{\"name\": \"Ann\"}", "email"),
                Arguments.of("{\"name\": \"Ann\", \"email\": \"" + repeat('e', 250) + "@x.test\"}", "email"),
                Arguments.of("{\"name\": \"Ann\", \"email\": [\"a@example.test\"]}", "email"),
                Arguments.of("{\"name\": \"Ann\", \"email\": \"a@example.test\", \"password\": \"x\"}", "password"));
    }

    @ParameterizedTest
    @MethodSource("invalidUsers")
    void invalidFieldsAreNamedAndNothingIsStored(String body, String violation) {
        long users = count("users");
        expectInvalid(post("/api/v1/users", body), violation);
        assertThat(count("users")).isEqualTo(users);
    }

    @Test
    void emptyObjectNamesBothFields() {
        expectInvalid(post("/api/v1/users", "{}"), "name", "email");
        assertThat(count("users")).isEqualTo(100);
    }

    @Test
    void unreadableOrWrongTypeBodiesStoreNothing() {
        long users = count("users");
        expectProblem(post("/api/v1/users", "{\"name\": \"Ann\""), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/users").contentType(MediaType.TEXT_PLAIN)
                .body("{\"name\": \"Ann\", \"email\": \"a@example.test\"}").exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(count("users")).isEqualTo(users);
    }

    @Test
    void unknownOrNonNumericIdOnGet() {
        expectProblem(get("/api/v1/users/4242"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.resource.type").isEqualTo("user")
                .jsonPath("$.resource.name").isEqualTo("4242");
        expectInvalid(get("/api/v1/users/ann"), "id");
    }
}
