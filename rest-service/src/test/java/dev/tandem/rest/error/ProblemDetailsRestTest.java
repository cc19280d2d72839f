package dev.tandem.rest.error;

import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.rest.TestRoutes;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failures that Spring MVC detects before any controller runs, and the last-resort 500: all of
 * them problem+json with a gRPC code, none of them a 500 unless the server is at fault.
 */
class ProblemDetailsRestTest extends RestIntegrationTest {

    @Test
    void unknownRouteIsNotFound() {
        expectProblem(get("/api/v1/groupz"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.detail").isEqualTo("no route for GET /api/v1/groupz")
                .jsonPath("$.instance").isEqualTo("/api/v1/groupz");
        expectProblem(get("/api/v1/groups/1/ratings/2"), HttpStatus.NOT_FOUND, "NOT_FOUND");
        expectProblem(get("/"), HttpStatus.NOT_FOUND, "NOT_FOUND");
    }

    @Test
    void wrongMethodIsMethodNotAllowedWithTheAllowedOnes() {
        expectProblem(http.put().uri("/api/v1/groups/1").contentType(MediaType.APPLICATION_JSON).body("{}").exchange(),
                HttpStatus.METHOD_NOT_ALLOWED, "UNIMPLEMENTED")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("PUT"));
        http.put().uri("/api/v1/groups/1").contentType(MediaType.APPLICATION_JSON).body("{}").exchange()
                .expectHeader().value("Allow", allow -> assertThat(allow).contains("GET", "PATCH", "DELETE"));
        expectProblem(http.delete().uri("/api/v1/users/1").exchange(), HttpStatus.METHOD_NOT_ALLOWED, "UNIMPLEMENTED");
        expectProblem(http.get().uri("/api/v1/groups/1/members").exchange(), HttpStatus.METHOD_NOT_ALLOWED, "UNIMPLEMENTED");
        assertThat(count("study_groups")).isEqualTo(50);
    }

    @Test
    void unacceptableAcceptHeaderStillGetsProblemJson() {
        expectProblem(http.get().uri("/api/v1/groups/1").accept(MediaType.APPLICATION_XML).exchange(),
                HttpStatus.NOT_ACCEPTABLE, "INVALID_ARGUMENT");
    }

    @Test
    void problemsAreProblemJsonEvenWhenTheClientAcceptsOnlyJson() {
        expectProblem(http.get().uri("/api/v1/groups/9999").accept(MediaType.APPLICATION_JSON).exchange(),
                HttpStatus.NOT_FOUND, "NOT_FOUND");
        expectProblem(http.get().uri("/api/v1/groups/abc").accept(MediaType.APPLICATION_JSON).exchange(),
                HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT");
    }

    @Test
    void unsupportedContentTypeNamesWhatIsSupported() {
        expectProblem(http.post().uri("/api/v1/users").contentType(MediaType.TEXT_PLAIN).body("hi").exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("text/plain"));
        // No Content-Type at all is not JSON either.
        expectProblem(http.post().uri("/api/v1/users").body(new byte[] {'{', '}'}).exchange(),
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
    }

    /**
     * No endpoint takes multipart bodies, so none is parsed: a multipart Content-Type, even one
     * without its boundary (what the OpenAPI fuzzer sent), is no 500. A read ignores it; a write
     * gets the 415 of any other content type that is not JSON.
     */
    @Test
    void multipartContentTypesAreNeverParsed() {
        for (String multipart : List.of("multipart/form-data", "multipart/form-data; boundary=b", "multipart/mixed")) {
            get("/api/v1/groups/1").expectStatus().isOk();
            http.get().uri("/api/v1/groups/1").header(HttpHeaders.CONTENT_TYPE, multipart).exchange()
                    .expectStatus().isOk();
            http.delete().uri("/api/v1/groups/1/members/1").header(HttpHeaders.CONTENT_TYPE, multipart).exchange()
                    .expectStatus().value(status -> assertThat(status).as(multipart).isIn(404, 409));
            expectProblem(http.post().uri("/api/v1/users").header(HttpHeaders.CONTENT_TYPE, multipart)
                            .body("--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nMulti\r\n--b--\r\n"
                                    .getBytes(StandardCharsets.US_ASCII)).exchange(),
                    HttpStatus.UNSUPPORTED_MEDIA_TYPE, "INVALID_ARGUMENT");
        }
        assertThat(count("users")).isEqualTo(100);
    }

    @Test
    void malformedJsonSaysWhere() {
        expectProblem(post("/api/v1/users", "{\"name\": \"Ann\",\n \"email\" \"a@example.test\"}"),
                HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("line 2"))
                .jsonPath("$.fieldViolations").doesNotExist();
    }

    @Test
    void jsonTypeErrorsNameNestedFieldsByTheirProtoPath() {
        expectInvalid(patch("/api/v1/groups/1", "{\"group\": {\"capacity\": {}}, \"updateMask\": \"capacity\"}"),
                "group.capacity")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail)
                        .doesNotContain("dev.tandem").doesNotContain("java.").doesNotContain("Jackson"));
    }

    @Test
    void unknownFieldsAreNamedAsSent() {
        expectInvalid(post("/api/v1/users", "{\"name\": \"Ann\", \"email\": \"a@example.test\", \"nickName\": \"A\"}"),
                "nickName")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail).doesNotContain("dev.tandem"));
    }

    @Test
    void anUnexpectedFailureIsAGeneric500ThatLeaksNothing() {
        expectProblem(get("/test/fail"), HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL")
                .jsonPath("$.title").isEqualTo("Internal Server Error")
                .jsonPath("$.detail").value((String detail) -> assertThat(detail)
                        .doesNotContain("boom").doesNotContain(TestRoutes.SECRET).doesNotContain("IllegalStateException"))
                .jsonPath("$.trace").doesNotExist()
                .jsonPath("$.exception").doesNotExist();
        String body = get("/test/fail").expectBody(String.class).returnResult().getResponseBody();
        assertThat(body).doesNotContain(TestRoutes.SECRET).doesNotContain("at dev.tandem");
    }

    @Test
    void domainErrorsCarryTitleFromTheSharedTable() {
        expectProblem(get("/api/v1/groups/9999"), HttpStatus.NOT_FOUND, "NOT_FOUND")
                .jsonPath("$.title").isEqualTo("Not Found");
        expectProblem(get("/api/v1/groups?page_size=5000"), HttpStatus.BAD_REQUEST, "INVALID_ARGUMENT")
                .jsonPath("$.title").isEqualTo("Bad Request")
                .jsonPath("$.fieldViolations[0].field").isEqualTo("page_size")
                .jsonPath("$.fieldViolations[0].description").isNotEmpty();
    }
}
