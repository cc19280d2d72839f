package dev.tandem.rest;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.json.JsonCompareMode;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Path ids are strictly decimal on every endpoint that takes one ({@link DecimalParameters}): a
 * value that is not a 64-bit decimal integer is a 400 whose whole problem body names the variable
 * and the value, the same body Spring's data binder produced before ids were parsed without one.
 * (Which malformed values are refused, per operation, is HostileInputRestTest's table; this pins
 * the body.)
 */
class DecimalPathIdsRestTest extends RestIntegrationTest {

    /** Every route with an id in its path: method, target with {bad} where the bad id goes, the variable. */
    record Route(HttpMethod method, String target, String variable, String body) {

        @Override
        public String toString() {
            return method + " " + target;
        }
    }

    static Stream<Route> routesWithAnId() {
        return Stream.of(
                new Route(HttpMethod.GET, "/api/v1/groups/{bad}", "id", null),
                new Route(HttpMethod.PATCH, "/api/v1/groups/{bad}", "id", "{\"name\":\"Renamed\"}"),
                new Route(HttpMethod.DELETE, "/api/v1/groups/{bad}", "id", null),
                new Route(HttpMethod.GET, "/api/v1/groups/{bad}/events", "id", null),
                new Route(HttpMethod.POST, "/api/v1/groups/{bad}/members", "group_id", "{\"userId\":2}"),
                new Route(HttpMethod.DELETE, "/api/v1/groups/{bad}/members/2", "group_id", null),
                new Route(HttpMethod.DELETE, "/api/v1/groups/1/members/{bad}", "user_id", null),
                new Route(HttpMethod.POST, "/api/v1/groups/{bad}/ratings", "group_id", "{\"userId\":2,\"score\":4}"),
                new Route(HttpMethod.POST, "/api/v1/groups/{bad}/sessions", "group_id",
                        "{\"startsAt\":\"2030-01-01T10:00:00Z\",\"durationMinutes\":60}"),
                new Route(HttpMethod.GET, "/api/v1/users/{bad}", "id", null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routesWithAnId")
    void anIdThatIsNotADecimal64BitIntegerIsTheSame400Everywhere(Route route) {
        // and digits of other scripts, which Long.parseLong reads (the Arabic-Indic twelve, a fullwidth ten)
        for (String bad : List.of("0x10", "ten", "9223372036854775808", "1.5", "\u0661\u0662", "\uFF11\uFF10")) {
            String path = route.target().replace("{bad}", bad);
            // The watch answers only an event stream; asked for JSON it would be a 406 before any id is read.
            MediaType accept = path.endsWith("/events") ? MediaType.TEXT_EVENT_STREAM : MediaType.APPLICATION_JSON;
            var request = http.method(route.method()).uri(path).accept(accept);
            if (route.body() != null) {
                request.contentType(MediaType.APPLICATION_JSON).body(route.body());
            }
            String description = "must be a 64-bit integer, got '" + bad + "'";
            String expected = """
                    {"title":"Bad Request","status":400,"detail":"%s: %s","instance":"%s",
                     "code":"INVALID_ARGUMENT","fieldViolations":[{"field":"%s","description":"%s"}]}"""
                    .formatted(route.variable(), description, asSent(path), route.variable(), description);
            request.exchange()
                    .expectStatus().isBadRequest()
                    .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody().json(expected, JsonCompareMode.STRICT);
        }
        assertThat(count("study_groups")).isEqualTo(50);
    }

    /** The path as the client sends it, and the problem's instance names it: percent-encoded UTF-8. */
    private static String asSent(String path) {
        try {
            return new java.net.URI(null, null, path, null).toASCIIString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
