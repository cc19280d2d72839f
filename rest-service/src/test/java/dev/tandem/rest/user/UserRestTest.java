package dev.tandem.rest.user;

import dev.tandem.rest.RestIntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CreateUser and GetUser as only HTTP shows them: 201 with Location, JSON parsing, path variables,
 * unreadable bodies. The rest is the scenario table in system-tests (WireScenarios).
 */
class UserRestTest extends RestIntegrationTest {

    @Test
    void createAnswers201WithLocation() {
        EntityExchangeResult<String> created = post("/api/v1/users", """
                {"name": "Grace Hopper", "email": "grace@example.test"}
                """)
                .expectStatus().isCreated()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
                .expectBody(String.class).returnResult();

        long id = json.readTree(created.getResponseBody()).get("id").asLong();
        assertThat(created.getResponseHeaders().getLocation()).hasToString("/api/v1/users/" + id);
    }

    static Stream<Arguments> invalidUsers() {
        // Explicit empty strings (protobuf's JSON printer leaves them out) and what only JSON can get wrong.
        return Stream.of(
                Arguments.of("{\"name\": \"\", \"email\": \"a@example.test\"}", "name"),
                Arguments.of("{\"name\": \"Ann\", \"email\": \"\"}", "email"),
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
    void unreadableOrWrongTypeBodiesStoreNothing() {
        long users = count("users");
        expectProblem(post("/api/v1/users", "{\"name\": \"Ann\""), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
        expectProblem(http.post().uri("/api/v1/users").contentType(MediaType.TEXT_PLAIN)
                .body("{\"name\": \"Ann\", \"email\": \"a@example.test\"}").exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        assertThat(count("users")).isEqualTo(users);
    }

    @Test
    void nonNumericIdOnGet() {
        expectInvalid(get("/api/v1/users/ann"), "id");
    }
}
