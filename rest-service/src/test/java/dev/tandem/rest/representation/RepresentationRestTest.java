package dev.tandem.rest.representation;

import com.google.protobuf.FieldMask;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.HelloResponse;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.User;
import dev.tandem.rest.RestIntegrationTest;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The REST wire's representations: protobuf for a client that asks (the same message the gRPC
 * wire sends, and request bodies that mean what their JSON means), gzip for a client that accepts
 * it, and conditional GETs. Real HTTP from the JDK's client, whose bytes are what the server sent.
 */
class RepresentationRestTest extends RestIntegrationTest {

    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final String PROTOBUF = "application/x-protobuf";

    @LocalServerPort int port;

    /** What an answer's ETag is: none, a strong tag (a resource read by id) or a weak one (a page). */
    private enum Tag { NONE, STRONG, WEAK }

    /**
     * Every read operation of the REST wire (README, "The API on both wires"; WatchGroup's events
     * are a stream, GroupEventsRestTest), with the tag its answer carries: strong for a resource
     * read by id, weak for a listing (a page, a ranking), none for the hello-world (the bench's
     * floor, README "The hot path against the framework's floor"). The bodies of
     * GetGroup, ListGroups and GetLeaderboard are over the 1KB compression threshold
     * ({@link #everyReadNegotiatesCompressesAndRevalidatesAsTheReadmeSays} makes group 2 so).
     * {@code ServerRestTest#openApiDocumentsTheConditionalGetsOfEveryRead} checks that the OpenAPI
     * document has no other read.
     */
    private record Read(String operation, String path, Message message, Tag tag) {
    }

    private static final List<Read> READS = List.of(
            new Read("GetGroup", "/api/v1/groups/2", Group.getDefaultInstance(), Tag.STRONG),
            new Read("ListGroups", "/api/v1/groups?page_size=50", ListGroupsResponse.getDefaultInstance(), Tag.WEAK),
            new Read("GetUser", "/api/v1/users/1", User.getDefaultInstance(), Tag.STRONG),
            new Read("GetLeaderboard", "/api/v1/leaderboard?limit=50", Leaderboard.getDefaultInstance(), Tag.WEAK),
            new Read("Hello", "/api/v1/hello", HelloResponse.getDefaultInstance(), Tag.NONE));

    /** The representations every read and write answers in, each with its own tags. */
    private static final List<String> REPRESENTATIONS = List.of("application/json", PROTOBUF, "application/protobuf");

    /**
     * How a conditional request names what the client holds, made from the current tag of the
     * representation it asks for (and of another representation of the same content).
     */
    private enum TagForm {
        /** The ETag as the 200 sent it. */
        CURRENT,
        /** {@code *}: any current representation (RFC 9110 13.1.1, 13.1.2). */
        ANY,
        /** {@code "other", <current>}: a list naming it among others. */
        LIST_WITH_CURRENT,
        /** {@code "other", *} */
        LIST_WITH_ANY,
        /** {@code "other"} on one field line and the current tag on a second (RFC 9110 5.3: one list). */
        TWO_LINES_WITH_CURRENT,
        /** {@code W/} and the current tag's opaque-tag: equal to it under the weak comparison only. */
        WEAK_FORM,
        /** The current tag's opaque-tag without {@code W/}: equal to a weak tag under the weak comparison only. */
        STRONG_FORM,
        /** A tag the resource never had. */
        OTHER,
        /** The current tag of another representation (JSON's for protobuf, x-protobuf's for JSON). */
        OTHER_REPRESENTATION;

        /** The field lines that name this form, for a resource whose tags are {@code current} and {@code otherRepresentation}. */
        List<String> lines(String current, String otherRepresentation) {
            String opaque = current.startsWith("W/") ? current.substring(2) : current;
            return switch (this) {
                case CURRENT -> List.of(current);
                case ANY -> List.of("*");
                case LIST_WITH_CURRENT -> List.of("\"other\", " + current);
                case LIST_WITH_ANY -> List.of("\"other\", *");
                case TWO_LINES_WITH_CURRENT -> List.of("\"other\"", current);
                case WEAK_FORM -> List.of("W/" + opaque);
                case STRONG_FORM -> List.of(opaque);
                case OTHER -> List.of("\"other\"");
                case OTHER_REPRESENTATION -> List.of(otherRepresentation);
            };
        }

        /** Whether the form names {@code *}: the only If-None-Match that a read without a tag can fail. */
        boolean namesAny() {
            return this == ANY || this == LIST_WITH_ANY;
        }
    }

    /**
     * One conditional request and the status it must get: {@code method} with {@code field} naming
     * the resource's tag in {@code form}. GET and HEAD rows run on every read of {@link #READS} in every
     * representation (If-None-Match: weak comparison, and {@code *} is false when the resource has
     * a current representation: RFC 9110 13.1.2); PATCH and DELETE rows on UpdateGroup and
     * DeleteGroup of a group of their own (If-Match: strong comparison, any representation's tag,
     * RFC 9110 13.1.1; README, "Conditional writes on REST").
     */
    private record Conditional(String method, String field, TagForm form, int expected) {

        /**
         * The status this row gets on {@code read}: its own on a tagged read; on a read without a
         * tag, which still has a current representation, 304 for a form naming {@code *} (false
         * then, RFC 9110 13.1.2) and 200 for one naming only tags (none can be its current one).
         */
        int expectedOn(Read read) {
            if (read.tag() != Tag.NONE) {
                return expected;
            }
            return form.namesAny() ? 304 : 200;
        }
    }

    private static final List<Conditional> CONDITIONALS = List.of(
            new Conditional("GET", "If-None-Match", TagForm.CURRENT, 304),
            new Conditional("GET", "If-None-Match", TagForm.ANY, 304),
            new Conditional("GET", "If-None-Match", TagForm.LIST_WITH_CURRENT, 304),
            new Conditional("GET", "If-None-Match", TagForm.LIST_WITH_ANY, 304),
            new Conditional("GET", "If-None-Match", TagForm.TWO_LINES_WITH_CURRENT, 304),
            new Conditional("GET", "If-None-Match", TagForm.WEAK_FORM, 304),
            new Conditional("GET", "If-None-Match", TagForm.STRONG_FORM, 304),
            new Conditional("GET", "If-None-Match", TagForm.OTHER, 200),
            new Conditional("GET", "If-None-Match", TagForm.OTHER_REPRESENTATION, 200),
            new Conditional("HEAD", "If-None-Match", TagForm.CURRENT, 304),
            new Conditional("HEAD", "If-None-Match", TagForm.ANY, 304),
            new Conditional("HEAD", "If-None-Match", TagForm.LIST_WITH_CURRENT, 304),
            new Conditional("HEAD", "If-None-Match", TagForm.LIST_WITH_ANY, 304),
            new Conditional("HEAD", "If-None-Match", TagForm.TWO_LINES_WITH_CURRENT, 304),
            new Conditional("HEAD", "If-None-Match", TagForm.WEAK_FORM, 304),
            new Conditional("HEAD", "If-None-Match", TagForm.STRONG_FORM, 304),
            new Conditional("HEAD", "If-None-Match", TagForm.OTHER, 200),
            new Conditional("HEAD", "If-None-Match", TagForm.OTHER_REPRESENTATION, 200),
            new Conditional("PATCH", "If-Match", TagForm.CURRENT, 200),
            new Conditional("PATCH", "If-Match", TagForm.ANY, 200),
            new Conditional("PATCH", "If-Match", TagForm.LIST_WITH_CURRENT, 200),
            new Conditional("PATCH", "If-Match", TagForm.TWO_LINES_WITH_CURRENT, 200),
            new Conditional("PATCH", "If-Match", TagForm.OTHER_REPRESENTATION, 200),
            new Conditional("PATCH", "If-Match", TagForm.WEAK_FORM, 412),
            new Conditional("PATCH", "If-Match", TagForm.OTHER, 412),
            new Conditional("DELETE", "If-Match", TagForm.CURRENT, 204),
            new Conditional("DELETE", "If-Match", TagForm.ANY, 204),
            new Conditional("DELETE", "If-Match", TagForm.LIST_WITH_CURRENT, 204),
            new Conditional("DELETE", "If-Match", TagForm.TWO_LINES_WITH_CURRENT, 204),
            new Conditional("DELETE", "If-Match", TagForm.OTHER_REPRESENTATION, 204),
            new Conditional("DELETE", "If-Match", TagForm.WEAK_FORM, 412),
            new Conditional("DELETE", "If-Match", TagForm.OTHER, 412));

    /** The headers a 304 carries when its 200 does (RFC 9110 15.4.5); Date is checked apart, its value being the time. */
    private static final List<String> NOT_MODIFIED_HEADERS = List.of("ETag", "Cache-Control", "Content-Location", "Expires");

    // ---- every read operation ------------------------------------------------------------------

    /**
     * Each read, in each representation: the type asked for, Vary on the 200 and on the 304, the tag
     * of its kind (differing per representation, RFC 9110 8.8.3: application/protobuf and
     * application/x-protobuf are the same bytes under two Content-Types, so two tags; failed before,
     * when both had the one ".pb" tag and either's 304 answered for the other), a 304 without a body on GET and
     * HEAD for the current tag and a 200 for the other representation's, and gzip for a client that
     * asks when the body is over the threshold — but never on a strong tag, which Tomcat leaves
     * uncompressed (README, "Conditional GET on REST").
     */
    @Test
    void everyReadNegotiatesCompressesAndRevalidatesAsTheReadmeSays() throws Exception {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 2").query(Long.class).single();
        assertThat(send(request("/api/v1/groups/2").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER)).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "{\"group\":{\"description\":\"" + "d".repeat(1000) + "\"},\"updateMask\":\"description\",\"expectedVersion\":"
                                + version + "}"))).statusCode()).isEqualTo(200);
        SoftAssertions each = new SoftAssertions();
        for (Read read : READS) {
            Map<String, String> tags = new java.util.HashMap<>();
            for (String type : List.of("application/json", PROTOBUF, "application/protobuf")) {
                String what = read.operation() + " as " + type;
                HttpResponse<byte[]> plain = sendBytes(request(read.path()).header("Accept", type));
                each.assertThat(plain.statusCode()).as(what).isEqualTo(200);
                each.assertThat(plain.headers().firstValue("Content-Type")).as(what).hasValue(type);
                each.assertThat(varyFields(plain)).as(what).contains("accept", "accept-encoding");
                String tag = plain.headers().firstValue("ETag").orElse(null);
                tags.put(type, tag);
                switch (read.tag()) {
                    case NONE -> each.assertThat(tag).as(what).isNull();
                    case STRONG -> each.assertThat(tag).as(what).startsWith("\"");
                    case WEAK -> each.assertThat(tag).as(what).startsWith("W/\"");
                }

                HttpResponse<byte[]> gzip = sendBytes(request(read.path()).header("Accept", type).header("Accept-Encoding", "gzip"));
                boolean compressible = plain.body().length >= 1024 && read.tag() != Tag.STRONG;
                each.assertThat(gzip.headers().firstValue("Content-Encoding")).as(what + ", gzip accepted")
                        .isEqualTo(compressible ? java.util.Optional.of("gzip") : java.util.Optional.empty());
                each.assertThat(compressible ? gunzip(gzip.body()) : gzip.body()).as(what + ", gzip accepted").isEqualTo(plain.body());
                each.assertThat(gzip.headers().firstValue("ETag")).as(what + ", gzip accepted")
                        .isEqualTo(java.util.Optional.ofNullable(tag));

                if (tag != null) {
                    for (String method : List.of("GET", "HEAD")) {
                        HttpResponse<byte[]> current = sendBytes(request(read.path()).header("Accept", type)
                                .header("Accept-Encoding", "gzip").header("If-None-Match", tag)
                                .method(method, HttpRequest.BodyPublishers.noBody()));
                        each.assertThat(current.statusCode()).as("%s, %s, current tag", what, method).isEqualTo(304);
                        each.assertThat(current.body()).as("%s, %s, current tag", what, method).isEmpty();
                        each.assertThat(current.headers().firstValue("ETag")).as("%s, %s, current tag", what, method).hasValue(tag);
                        each.assertThat(current.headers().firstValue("Cache-Control")).as("%s, %s", what, method).hasValue("no-cache");
                        each.assertThat(varyFields(current)).as("%s, %s, current tag", what, method)
                                .contains("accept", "accept-encoding");
                    }
                }
            }
            if (read.tag() != Tag.NONE) {
                // three representations (the protobuf bytes under two types), three tags
                each.assertThat(java.util.Set.copyOf(tags.values())).as(read.operation() + ": " + tags).hasSize(3);
                HttpResponse<byte[]> other = sendBytes(request(read.path()).header("Accept", PROTOBUF)
                        .header("If-None-Match", tags.get("application/json")));
                each.assertThat(other.statusCode()).as(read.operation() + ": the JSON tag asked of protobuf").isEqualTo(200);
            }
        }
        each.assertAll();
    }

    // ---- protobuf ------------------------------------------------------------------------------

    @Test
    void aClientThatAcceptsProtobufGetsTheMessageItsJsonDescribes() throws Exception {
        for (Read read : READS) {
            String path = read.path();
            Message.Builder expected = read.message().newBuilderForType();
            Message.Builder fromBinary = expected.clone();
            JsonFormat.parser().merge(send(request(path).header("Accept", "application/json")).body(), expected);

            HttpResponse<byte[]> binary = sendBytes(request(path).header("Accept", PROTOBUF));
            assertThat(binary.statusCode()).as(path).isEqualTo(200);
            assertThat(binary.headers().firstValue("Content-Type")).as(path).hasValue(PROTOBUF);
            fromBinary.mergeFrom(binary.body());
            assertThat(fromBinary.build()).as(path).isEqualTo(expected.build());
        }
        // the standard name is understood too, and answered under the name asked for
        assertThat(sendBytes(request("/api/v1/groups/1").header("Accept", "application/protobuf")).headers()
                .firstValue("Content-Type")).hasValue("application/protobuf");
    }

    /**
     * The Content-Type describes the body that was sent, not the parameters of the Accept range that
     * chose it: JSON goes out as UTF-8 (RFC 8259 8.1) whatever charset a client names, and protobuf
     * as its bare type, whatever message name a client puts in a parameter. Failed before: Spring
     * answered with the Accept range itself when it was the more specific, so a UTF-8 body went out
     * as {@code application/json;charset=utf-16} and a tandem.v1.Group as
     * {@code application/x-protobuf;proto=tandem.v1.User}.
     */
    @Test
    void theContentTypeDescribesTheBodyNotTheAcceptRangeThatChoseIt() throws Exception {
        for (String path : READS.stream().map(Read::path).toList()) {
            HttpResponse<byte[]> plain = sendBytes(request(path).header("Accept", "application/json"));
            HttpResponse<byte[]> utf16 = sendBytes(request(path).header("Accept", "application/json;charset=utf-16"));
            assertThat(utf16.statusCode()).as(path).isEqualTo(200);
            assertThat(utf16.headers().firstValue("Content-Type")).as(path).hasValue("application/json");
            assertThat(utf16.body()).as(path).isEqualTo(plain.body());
            // the same bytes under the same Content-Type: one tag fits both (a strong tag may not
            // stand for two representations whose metadata differ)
            assertThat(utf16.headers().firstValue("ETag")).as(path).isEqualTo(plain.headers().firstValue("ETag"));

            HttpResponse<byte[]> named = sendBytes(request(path).header("Accept", PROTOBUF + "; proto=tandem.v1.User"));
            assertThat(named.statusCode()).as(path).isEqualTo(200);
            assertThat(named.headers().firstValue("Content-Type")).as(path).hasValue(PROTOBUF);
            assertThat(named.body()).as(path).isEqualTo(sendBytes(request(path).header("Accept", PROTOBUF)).body());
        }
        // writes answer a body too: 201 and a PATCH's 200
        HttpResponse<byte[]> created = sendBytes(request("/api/v1/users").header("Accept", "application/json;charset=utf-16")
                .header("Content-Type", "application/json").header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Charset Free\",\"email\":\"charset.free@example.test\"}")));
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(json.readTree(new String(created.body(), StandardCharsets.UTF_8)).get("name").asString())
                .isEqualTo("Charset Free");
        HttpResponse<byte[]> patched = sendBytes(request("/api/v1/groups/2").header("Accept", PROTOBUF + ";proto=tandem.v1.User")
                .header("Content-Type", "application/json").header("Authorization", bearer(WRITER))
                .method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "{\"group\":{\"description\":\"named\"},\"updateMask\":\"description\",\"expectedVersion\":1}")));
        assertThat(patched.statusCode()).isEqualTo(200);
        assertThat(patched.headers().firstValue("Content-Type")).hasValue(PROTOBUF);
        assertThat(Group.parseFrom(patched.body()).getDescription()).isEqualTo("named");
        // and a problem is problem+json, UTF-8, whatever was asked for
        HttpResponse<byte[]> missing = sendBytes(request("/api/v1/groups/999999").header("Accept", "application/json;charset=utf-16"));
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json.readTree(new String(missing.body(), StandardCharsets.UTF_8)).get("code").asString()).isEqualTo("NOT_FOUND");
    }

    /**
     * q=0 means "not acceptable" (RFC 9110 12.4.2), and a type's quality is that of the most
     * specific range that matches it (12.5.1), so {@code application/json;q=0, *}{@code /*} asks for
     * anything but JSON. Failed before: each of these was answered 200 with the refused type
     * (protobuf for {@code application/x-protobuf;q=0}, JSON for the others).
     */
    @Test
    void aTypeTheClientRatesZeroIsNeverServed() throws Exception {
        String noRepresentation = "application/json;q=0, application/x-protobuf;q=0, application/protobuf;q=0, */*";
        for (String path : READS.stream().map(Read::path).toList()) {
            for (String accept : List.of(PROTOBUF + ";q=0", "text/html, application/json;q=0", "*/*;q=0", noRepresentation)) {
                HttpResponse<String> refused = send(request(path).header("Accept", accept));
                assertThat(refused.statusCode()).as("%s %s", path, accept).isEqualTo(406);
                assertThat(refused.headers().firstValue("Content-Type")).as("%s %s", path, accept)
                        .hasValue("application/problem+json");
                assertThat(json.readTree(refused.body()).get("code").asString()).isEqualTo("INVALID_ARGUMENT");
            }
            // what a wider range still allows is served: here the other representation
            HttpResponse<byte[]> other = sendBytes(request(path).header("Accept", "application/json;q=0, */*"));
            assertThat(other.statusCode()).as(path).isEqualTo(200);
            assertThat(other.headers().firstValue("Content-Type")).as(path).hasValue(PROTOBUF);
            // the more specific range decides, even when the wider one is rated higher
            assertThat(sendBytes(request(path).header("Accept", "*/*;q=0.9, application/json;q=0.1")).headers()
                    .firstValue("Content-Type")).as(path).hasValue(PROTOBUF);
            // equal qualities keep the header's order, as before
            assertThat(sendBytes(request(path).header("Accept", PROTOBUF + ", application/json")).headers()
                    .firstValue("Content-Type")).as(path).hasValue(PROTOBUF);
            assertThat(sendBytes(request(path).header("Accept", "application/json, " + PROTOBUF)).headers()
                    .firstValue("Content-Type")).as(path).hasValue("application/json");
        }
        assertThat(Group.parseFrom(sendBytes(request("/api/v1/groups/2").header("Accept", "application/json;q=0, */*"))
                .body()).getId()).isEqualTo(2);
        // a write whose answer the client would refuse is refused before it is performed
        var before = allRows();
        HttpResponse<String> refusedWrite = send(request("/api/v1/users").header("Accept", noRepresentation)
                .header("Content-Type", "application/json").header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Never Made\",\"email\":\"never.made@example.test\"}")));
        assertThat(refusedWrite.statusCode()).isEqualTo(406);
        assertThat(allRows()).isEqualTo(before);
        HttpResponse<byte[]> created = sendBytes(request("/api/v1/users").header("Accept", "application/json;q=0, */*")
                .header("Content-Type", "application/json").header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Binary Made\",\"email\":\"binary.made@example.test\"}")));
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(User.parseFrom(created.body()).getName()).isEqualTo("Binary Made");
    }

    /**
     * Accept is about the content of the answer (RFC 9110 12.5.1), and a DELETE's 204 has none, so
     * DeleteGroup and LeaveGroup are performed whatever types the client accepts, unless it accepts
     * none at all; their failures are problem+json as everywhere. Failed before: both were refused
     * with 406, nothing done, for {@code Accept: text/html} (a browser's) or for one rating every
     * type the other routes send 0.
     */
    @Test
    void aDeleteHasNoContentToNegotiateSoAnyAcceptTakesIt() throws Exception {
        long member = jdbc.sql("SELECT MIN(user_id) FROM group_members WHERE group_id = 3").query(Long.class).single();
        String noRepresentation = "application/json;q=0, application/x-protobuf;q=0, application/protobuf;q=0, */*";
        for (var delete : List.of(Map.entry("/api/v1/groups/3/members/" + member, noRepresentation),
                Map.entry("/api/v1/groups/4", "text/html"))) {
            HttpResponse<String> done = send(request(delete.getKey()).header("Accept", delete.getValue())
                    .header("Authorization", bearer(WRITER)).DELETE());
            assertThat(done.statusCode()).as("%s: %s", delete.getKey(), done.body()).isEqualTo(204);
            assertThat(done.body()).isEmpty();
        }
        assertThat(jdbc.sql("SELECT COUNT(*) FROM group_members WHERE group_id = 3 AND user_id = ?").param(member)
                .query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM study_groups WHERE id = 4").query(Long.class).single()).isZero();
        // only an Accept that refuses everything refuses it, before it is performed
        HttpResponse<String> nothing = send(request("/api/v1/groups/5").header("Accept", "*/*;q=0")
                .header("Authorization", bearer(WRITER)).DELETE());
        assertThat(nothing.statusCode()).isEqualTo(406);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM study_groups WHERE id = 5").query(Long.class).single()).isOne();
        // a failure is still a problem, in the one type problems have
        HttpResponse<String> missing = send(request("/api/v1/groups/4").header("Accept", "text/html")
                .header("Authorization", bearer(WRITER)).DELETE());
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json.readTree(missing.body()).get("code").asString()).isEqualTo("NOT_FOUND");
    }

    @Test
    void jsonStaysTheDefault() throws Exception {
        assertThat(send(request("/api/v1/groups/1")).headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(send(request("/api/v1/groups/1").header("Accept", "*/*")).headers().firstValue("Content-Type"))
                .hasValue("application/json");
    }

    @Test
    void aProtobufRequestBodyIsAcceptedAndMeansWhatItsJsonMeans() throws Exception {
        CreateUserRequest create = CreateUserRequest.newBuilder().setName("Proto Ada").setEmail("proto.ada@example.test").build();
        HttpResponse<byte[]> created = sendBytes(request("/api/v1/users").header("Accept", PROTOBUF)
                .header("Content-Type", PROTOBUF).header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofByteArray(create.toByteArray())));

        assertThat(created.statusCode()).isEqualTo(201);
        User user = User.parseFrom(created.body());
        assertThat(user.getName()).isEqualTo("Proto Ada");
        assertThat(jdbc.sql("SELECT email FROM users WHERE id = ?").param(user.getId()).query(String.class).single())
                .isEqualTo("proto.ada@example.test");
    }

    /**
     * Fields the message does not have: skipped in a binary body, as protobuf's readers (and gRPC)
     * skip them so that a newer client's fields do not break an older server, where a JSON body
     * naming one is refused (README, "Protobuf over REST").
     */
    @Test
    void aProtobufBodysUnknownFieldsAreSkippedWhereJsonsAreRefused() throws Exception {
        byte[] known = CreateUserRequest.newBuilder().setName("Proto Newer").setEmail("proto.newer@example.test").build()
                .toByteArray();
        byte[] withField99 = java.util.Arrays.copyOf(known, known.length + 3);
        withField99[known.length] = (byte) 0x98;     // field 99, varint: tag (99 << 3) as a varint, 0x98 0x06
        withField99[known.length + 1] = 0x06;
        withField99[known.length + 2] = 0x01;        // = 1
        assertThat(CreateUserRequest.parseFrom(withField99).getUnknownFields().hasField(99)).isTrue();
        HttpResponse<String> created = send(request("/api/v1/users").header("Content-Type", PROTOBUF)
                .header("Authorization", bearer(WRITER)).POST(HttpRequest.BodyPublishers.ofByteArray(withField99)));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

        HttpResponse<String> refused = send(request("/api/v1/users").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER)).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"Json Newer\",\"email\":\"json.newer@example.test\",\"nickname\":\"jn\"}")));
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    }

    @Test
    void aProtobufBodyIsValidatedLikeJsonAndRefusalsStayProblemJson() throws Exception {
        var before = allRows();
        // no name, capacity or owner: the proto defaults, which the domain refuses naming each field
        CreateGroupRequest incomplete = CreateGroupRequest.newBuilder().setSubject("algorithms").build();
        HttpResponse<String> refused = send(request("/api/v1/groups").header("Accept", PROTOBUF)
                .header("Content-Type", PROTOBUF).header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofByteArray(incomplete.toByteArray())));

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json.readTree(refused.body()).get("fieldViolations").findValuesAsString("field"))
                .contains("name", "capacity", "owner_id");
        assertThat(allRows()).isEqualTo(before);
    }

    // Bytes that are not the request message, empty bodies and the size limit, on every write: the
    // hostile table (HostileRestRequests#protobufBodies).

    @Test
    void whatTheJsonBodysReaderRefusesIsRefusedInItsProtobufTwinTooAsABadRequest() throws Exception {
        var before = allRows();
        // the group is the route's: a body naming it is refused (in JSON, groupId is an unknown field)
        JoinGroupRequest naming = JoinGroupRequest.newBuilder().setGroupId(1).setUserId(1).build();
        // a string over the JSON reader's 10,000-character limit (gRPC names the field too)
        CreateUserRequest overlong = CreateUserRequest.newBuilder().setName("n".repeat(20_000)).setEmail("long@example.test").build();
        for (var refused : List.of(
                send(request("/api/v1/groups/1/members").header("Content-Type", PROTOBUF).header("Authorization", bearer(WRITER))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(naming.toByteArray()))),
                send(request("/api/v1/users").header("Content-Type", PROTOBUF).header("Authorization", bearer(WRITER))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(overlong.toByteArray()))))) {
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        }
        assertThat(allRows()).isEqualTo(before);
    }

    @Test
    void aFieldMaskPathItsJsonFormWouldChangeIsRefusedAsGrpcRefusesIt() throws Exception {
        String name = jdbc.sql("SELECT name FROM study_groups WHERE id = 1").query(String.class).single();
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        // "NAME" would print as "name", "name,capacity" as two paths: gRPC refuses both (no such field)
        for (String path : List.of("NAME", "name,capacity", " name")) {
            UpdateGroupRequest update = UpdateGroupRequest.newBuilder().setId(1)
                    .setGroup(Group.newBuilder().setName("Renamed through a bent mask").setCapacity(7))
                    .setUpdateMask(FieldMask.newBuilder().addPaths(path)).setExpectedVersion(version).build();
            HttpResponse<String> refused = send(request("/api/v1/groups/1").header("Content-Type", PROTOBUF)
                    .header("Authorization", bearer(WRITER))
                    .method("PATCH", HttpRequest.BodyPublishers.ofByteArray(update.toByteArray())));
            assertThat(refused.statusCode()).as("%s: %s", path, refused.body()).isEqualTo(400);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(json.readTree(refused.body()).get("fieldViolations").findValuesAsString("field")).containsExactly("update_mask");
        }
        assertThat(jdbc.sql("SELECT name FROM study_groups WHERE id = 1").query(String.class).single()).isEqualTo(name);
    }

    /**
     * Output-only fields a client sends back (a group as it was read, its times included) are ignored,
     * as gRPC and the JSON body ignore them, even when they would not print as JSON. Failed before: a
     * create_time with negative nanos made the protobuf twin a 400 naming group.create_time.
     */
    @Test
    void outputOnlyFieldsOfAProtobufBodyAreIgnoredAsOnGrpc() throws Exception {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        UpdateGroupRequest update = UpdateGroupRequest.newBuilder()  // the id is the path's
                .setGroup(Group.newBuilder().setName("Renamed with its read times").setMemberCount(-3)
                        .setCreateTime(com.google.protobuf.Timestamp.newBuilder().setSeconds(1).setNanos(-1)))
                .setUpdateMask(FieldMask.newBuilder().addPaths("name")).setExpectedVersion(version).build();
        HttpResponse<String> applied = send(request("/api/v1/groups/1").header("Content-Type", PROTOBUF)
                .header("Authorization", bearer(WRITER))
                .method("PATCH", HttpRequest.BodyPublishers.ofByteArray(update.toByteArray())));
        assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
        assertThat(jdbc.sql("SELECT name FROM study_groups WHERE id = 1").query(String.class).single())
                .isEqualTo("Renamed with its read times");
    }

    // ---- gzip ----------------------------------------------------------------------------------

    @Test
    void gzipIsForAClientThatAcceptsItAndABodyWorthCompressing() throws Exception {
        String path = "/api/v1/groups?page_size=50";
        HttpResponse<byte[]> identity = sendBytes(request(path));
        HttpResponse<byte[]> gzip = sendBytes(request(path).header("Accept-Encoding", "gzip"));

        assertThat(identity.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(gzip.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(gzip.body().length).isLessThan(identity.body().length / 3);
        assertThat(gunzip(gzip.body())).isEqualTo(identity.body());
        // each read in each representation, and the threshold: everyReadNegotiatesCompressesAndRevalidatesAsTheReadmeSays
    }

    /**
     * The minimum size holds for every answer, whatever wrote it: problems (404, 400, 406), 201s and
     * a PATCH's 200 are far below 1KB and go as they are, and a large 201 is still compressed.
     * Failed before: Tomcat applies compression-min-size only to a length it knows, and these bodies
     * were flushed (chunked, no Content-Length) before it knew, so a 166-byte 404 went out gzipped.
     */
    @Test
    void smallAnswersGoUncompressedWhateverWroteThem() throws Exception {
        String groupJson = "{\"name\":\"Small body\",\"subject\":\"algorithms\",\"capacity\":10,\"ownerId\":1}";
        Map<String, HttpRequest.Builder> small = new java.util.LinkedHashMap<>();
        small.put("404 problem", request("/api/v1/groups/999999"));
        small.put("400 problem", request("/api/v1/groups/abc"));
        small.put("406 problem", request("/api/v1/groups/1").header("Accept", "text/html"));
        small.put("201 user", request("/api/v1/users").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Small\",\"email\":\"small@example.test\"}")));
        small.put("201 group, protobuf", request("/api/v1/groups").header("Accept", PROTOBUF)
                .header("Content-Type", "application/json").header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString(groupJson)));
        small.put("201 membership", request("/api/v1/groups/2/members").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER)).POST(HttpRequest.BodyPublishers.ofString("{\"userId\":99}")));
        small.put("200 patch", request("/api/v1/groups/3").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER)).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "{\"group\":{\"description\":\"short\"},\"updateMask\":\"description\",\"expectedVersion\":1}")));
        small.put("200 leaderboard", request("/api/v1/leaderboard?limit=1"));
        SoftAssertions each = new SoftAssertions();  // every answer's verdict, not only the first's
        for (Map.Entry<String, HttpRequest.Builder> answer : small.entrySet()) {
            HttpResponse<byte[]> response = sendBytes(answer.getValue().header("Accept-Encoding", "gzip"));
            each.assertThat(response.headers().firstValue("Content-Encoding")).as(answer.getKey()).isEmpty();
            each.assertThat(response.body().length).as(answer.getKey()).isLessThan(1024);
            each.assertThat(response.headers().firstValueAsLong("Content-Length")).as(answer.getKey())
                    .hasValue(response.body().length);
        }
        each.assertAll();
        // a 201 above the minimum is compressed as before
        String large = "{\"name\":\"Large body\",\"subject\":\"algorithms\",\"capacity\":10,\"ownerId\":1,\"description\":\""
                + "d".repeat(1000) + "\"}";
        HttpResponse<byte[]> compressed = sendBytes(request("/api/v1/groups").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER)).header("Accept-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofString(large)));
        assertThat(compressed.statusCode()).isEqualTo(201);
        assertThat(compressed.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(json.readTree(new String(gunzip(compressed.body()), StandardCharsets.UTF_8)).get("description").asString())
                .hasSize(1000);
    }

    /**
     * A write's answer is negotiated as a read's is (JSON or protobuf by Accept), so it says so with
     * {@code Vary: Accept} (RFC 9110 12.5.5), and with Accept-Encoding where Tomcat may compress it.
     * Failed before: a PATCH's 200 had no Vary at all, and the 201s only {@code Vary: Accept-Encoding}.
     */
    @Test
    void writeAnswersVaryWithAcceptAsReadsDo() throws Exception {
        HttpResponse<byte[]> patched = sendBytes(request("/api/v1/groups/3").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER)).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "{\"group\":{\"description\":\"varies\"},\"updateMask\":\"description\",\"expectedVersion\":1}")));
        HttpResponse<byte[]> user = sendBytes(request("/api/v1/users").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Varied\",\"email\":\"varied@example.test\"}")));
        HttpResponse<byte[]> membership = sendBytes(request("/api/v1/groups/2/members").header("Accept", PROTOBUF)
                .header("Content-Type", "application/json").header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"userId\":99}")));
        HttpResponse<byte[]> large = sendBytes(request("/api/v1/groups").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER)).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"Large body\",\"subject\":\"algorithms\",\"capacity\":10,\"ownerId\":1,\"description\":\""
                                + "d".repeat(1000) + "\"}")));
        SoftAssertions each = new SoftAssertions();
        for (var answer : Map.of("200 patch", patched, "201 user", user, "201 membership", membership,
                "201 large group", large).entrySet()) {
            each.assertThat(answer.getValue().statusCode()).as(answer.getKey()).isBetween(200, 201);
            each.assertThat(varyFields(answer.getValue())).as(answer.getKey()).contains("accept");
        }
        each.assertThat(varyFields(large)).as("201 large group").contains("accept-encoding");
        each.assertAll();
    }

    // ---- conditional GET -----------------------------------------------------------------------

    /**
     * The If-None-Match rows of {@link #CONDITIONALS} on every read, in every representation: the
     * status of the row ({@link Conditional#expectedOn}); a 304 with no body and what its 200 has of
     * ETag, Cache-Control, Content-Location and Expires (none of the first two on Hello, which has
     * no tag), the 200's Vary, a Date, and no Content-Length but the 200's (RFC 9110 8.6, 15.4.5); a
     * 200 with the 200's tag (or none) and, on GET, its body. Failed before for GetLeaderboard,
     * whose answer had no tag, so that even {@code *} got 200 and the body; and for Hello's
     * {@code *} rows, which got 200 and the body while Hello has no tag.
     */
    @Test
    void everyReadAnswersEachConditionalRowWithItsStatus() throws Exception {
        SoftAssertions each = new SoftAssertions();
        try (HttpClient client = client()) {
            for (Read read : READS) {
                Map<String, HttpResponse<byte[]>> full = new java.util.HashMap<>();
                for (String type : REPRESENTATIONS) {
                    full.put(type, client.send(request(read.path()).header("Accept", type).build(),
                            HttpResponse.BodyHandlers.ofByteArray()));
                }
                for (String type : REPRESENTATIONS) {
                    HttpResponse<byte[]> ok = full.get(type);
                    String current = ok.headers().firstValue("ETag").orElse(null);
                    if (read.tag() != Tag.NONE) {
                        each.assertThat(current).as("%s as %s: the 200's ETag", read.operation(), type).isNotNull();
                    }
                    String other = full.get(type.equals("application/json") ? PROTOBUF : "application/json")
                            .headers().firstValue("ETag").orElse("\"none\"");
                    for (Conditional row : conditionals("If-None-Match")) {
                        List<String> lines = row.form().lines(current == null ? "\"none\"" : current, other);
                        String what = "%s as %s, %s %s: %s".formatted(read.operation(), type, row.method(), row.field(), lines);
                        HttpRequest.Builder conditional = request(read.path()).header("Accept", type)
                                .method(row.method(), HttpRequest.BodyPublishers.noBody());
                        lines.forEach(line -> conditional.header(row.field(), line));
                        HttpResponse<byte[]> answer = client.send(conditional.build(), HttpResponse.BodyHandlers.ofByteArray());
                        each.assertThat(answer.statusCode()).as(what).isEqualTo(row.expectedOn(read));
                        if (answer.statusCode() == 304) {
                            each.assertThat(answer.body()).as(what).isEmpty();
                            for (String header : NOT_MODIFIED_HEADERS) {
                                each.assertThat(answer.headers().allValues(header)).as("%s: %s", what, header)
                                        .isEqualTo(ok.headers().allValues(header));
                            }
                            each.assertThat(varyFields(answer)).as(what + ": Vary").isEqualTo(varyFields(ok));
                            each.assertThat(answer.headers().firstValue("Date")).as(what + ": Date").isPresent();
                            answer.headers().firstValueAsLong("Content-Length").ifPresent(length ->
                                    each.assertThat(length).as(what + ": Content-Length").isIn(0L, (long) ok.body().length));
                        } else if (answer.statusCode() == 200) {
                            each.assertThat(answer.headers().firstValue("ETag")).as(what).isEqualTo(ok.headers().firstValue("ETag"));
                            each.assertThat(answer.body()).as(what).isEqualTo(row.method().equals("HEAD") ? new byte[0] : ok.body());
                        }
                    }
                }
            }
        }
        each.assertAll();
    }

    /**
     * The If-Match rows of {@link #CONDITIONALS}, each on a group of its own: a true condition lets
     * the write be done, a false one is 412 FAILED_PRECONDITION with the group as it was (its tag
     * unchanged). GroupWritesRestTest has the rest: If-Match with expected_version, a missing group.
     */
    @Test
    void everyConditionalWriteAnswersItsRowsStatus() throws Exception {
        SoftAssertions each = new SoftAssertions();
        try (HttpClient client = client()) {
            for (Conditional row : conditionals("If-Match")) {
                HttpResponse<String> created = client.send(request("/api/v1/groups").header("Content-Type", "application/json")
                        .header("Authorization", bearer(WRITER)).POST(HttpRequest.BodyPublishers.ofString(
                                "{\"name\":\"Conditional\",\"subject\":\"algorithms\",\"capacity\":10,\"ownerId\":1}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
                String path = "/api/v1/groups/" + json.readTree(created.body()).get("id").asLong();
                HttpResponse<String> read = client.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
                String current = read.headers().firstValue("ETag").orElseThrow();
                String other = client.send(request(path).header("Accept", PROTOBUF).build(), HttpResponse.BodyHandlers.ofByteArray())
                        .headers().firstValue("ETag").orElseThrow();
                List<String> lines = row.form().lines(current, other);
                String what = "%s %s: %s".formatted(row.method(), row.field(), lines);

                HttpRequest.Builder write = request(path).header("Authorization", bearer(WRITER));
                if (row.method().equals("PATCH")) {
                    write.header("Content-Type", "application/json").method("PATCH", HttpRequest.BodyPublishers.ofString(
                            "{\"group\":{\"description\":\"conditional\"},\"updateMask\":\"description\",\"expectedVersion\":"
                                    + json.readTree(read.body()).get("version").asLong() + "}"));
                } else {
                    write.method(row.method(), HttpRequest.BodyPublishers.noBody());
                }
                lines.forEach(line -> write.header(row.field(), line));
                HttpResponse<String> answer = client.send(write.build(), HttpResponse.BodyHandlers.ofString());
                each.assertThat(answer.statusCode()).as("%s -> %s", what, answer.body()).isEqualTo(row.expected());

                HttpResponse<String> after = client.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
                if (row.expected() == 412) {
                    each.assertThat(answer.body()).as(what).contains("FAILED_PRECONDITION");
                    each.assertThat(after.headers().firstValue("ETag")).as(what + ": the group as it was").hasValue(current);
                } else if (row.method().equals("PATCH")) {
                    each.assertThat(after.body()).as(what + ": patched").contains("\"description\":\"conditional\"");
                } else {
                    each.assertThat(after.statusCode()).as(what + ": deleted").isEqualTo(404);
                }
            }
        }
        each.assertAll();
    }

    @Test
    void getGroupCarriesAStrongTagAndAnswers304ToAClientWhoseCopyIsCurrent() throws Exception {
        HttpResponse<String> first = send(request("/api/v1/groups/1"));
        String tag = first.headers().firstValue("ETag").orElseThrow();
        assertThat(tag).matches("\"[A-Za-z0-9_-]{22}\\.json\"");
        assertThat(first.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(first.headers().allValues("Vary")).anySatisfy(vary -> assertThat(vary).containsIgnoringCase("Accept"));
        assertThat(send(request("/api/v1/groups/1")).headers().firstValue("ETag")).hasValue(tag);

        HttpResponse<String> revalidated = send(request("/api/v1/groups/1").header("If-None-Match", tag));
        assertThat(revalidated.statusCode()).isEqualTo(304);
        assertThat(revalidated.body()).isEmpty();
        assertThat(revalidated.headers().firstValue("ETag")).hasValue(tag);
        // a 304 carries the 200's Vary (RFC 9110 15.4.5); before, it lacked Accept-Encoding (and the
        // leaderboard sent no Vary: every read's answers are in the table test)
        assertThat(varyFields(revalidated)).contains("accept", "accept-encoding");
        // a list of tags, one of them current
        assertThat(send(request("/api/v1/groups/1").header("If-None-Match", "\"other\", " + tag)).statusCode())
                .isEqualTo(304);
        // the protobuf representation's tag is another one
        assertThat(sendBytes(request("/api/v1/groups/1").header("Accept", PROTOBUF)).headers().firstValue("ETag"))
                .hasValueSatisfying(binaryTag -> assertThat(binaryTag).endsWith(".pb\"").isNotEqualTo(tag));
        // HEAD, and the other reads: everyReadNegotiatesCompressesAndRevalidatesAsTheReadmeSays
        HttpResponse<String> head = send(request("/api/v1/groups/1").method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(head.headers().firstValue("ETag")).hasValue(tag);
    }

    /**
     * On a GET only If-None-Match is evaluated: If-Match and, with no Last-Modified sent, the date
     * conditions leave a full 200 with the tag, as Spring's checkNotModified does (ConditionalGets
     * answers a GET without If-None-Match itself). A weak form of the current tag matches.
     */
    @Test
    void onlyIfNoneMatchMakesAGetConditional() throws Exception {
        String tag = send(request("/api/v1/groups/1")).headers().firstValue("ETag").orElseThrow();
        Map<String, String> ignored = Map.of("If-Match", "\"other\"",
                "If-Modified-Since", "Wed, 21 Oct 2099 07:28:00 GMT",
                "If-Unmodified-Since", "Wed, 21 Oct 2015 07:28:00 GMT");
        for (Map.Entry<String, String> condition : ignored.entrySet()) {
            HttpResponse<String> answer = send(request("/api/v1/groups/1").header(condition.getKey(), condition.getValue()));
            assertThat(answer.statusCode()).as(condition.getKey()).isEqualTo(200);
            assertThat(answer.headers().firstValue("ETag")).as(condition.getKey()).hasValue(tag);
            assertThat(answer.headers().firstValue("Cache-Control")).as(condition.getKey()).hasValue("no-cache");
            assertThat(json.readTree(answer.body()).get("id").asLong()).as(condition.getKey()).isEqualTo(1);
        }
        HttpResponse<String> revalidated = send(request("/api/v1/groups/1").header("If-None-Match", "W/" + tag));
        assertThat(revalidated.statusCode()).isEqualTo(304);
        assertThat(revalidated.headers().firstValue("ETag")).hasValue(tag);
    }

    /**
     * {@code If-None-Match: *} is false whenever a current representation exists (RFC 9110
     * 13.1.2), so a GET is answered 304, in a list too; a missing resource has none and is a 404.
     */
    @Test
    void anyTagRevalidatesWhateverTheCurrentOneIs() throws Exception {
        String tag = send(request("/api/v1/groups/1")).headers().firstValue("ETag").orElseThrow();
        for (String any : List.of("*", "\"other\", *")) {
            HttpResponse<String> revalidated = send(request("/api/v1/groups/1").header("If-None-Match", any));
            assertThat(revalidated.statusCode()).as(any).isEqualTo(304);
            assertThat(revalidated.body()).as(any).isEmpty();
            assertThat(revalidated.headers().firstValue("ETag")).as(any).hasValue(tag);
        }
        assertThat(send(request("/api/v1/groups?page_size=5").header("If-None-Match", "*")).statusCode()).isEqualTo(304);
        assertThat(send(request("/api/v1/groups/9999").header("If-None-Match", "*")).statusCode()).isEqualTo(404);
    }

    @Test
    void aJoinChangesTheTagsOfTheGroupAndItsPageThoughNotTheGroupsVersion() throws Exception {
        // the group's version column would be the wrong validator: joins, ratings and sessions
        // change the read model without a new version
        HttpResponse<String> before = send(request("/api/v1/groups/1"));
        String tag = before.headers().firstValue("ETag").orElseThrow();
        // both representations of the cached read model are encoded before the write
        Group binaryBefore = Group.parseFrom(sendBytes(request("/api/v1/groups/1").header("Accept", PROTOBUF)).body());
        // and the page that lists it, whose weak tag must change with its member count too
        String pageTag = send(request("/api/v1/groups?page_size=5")).headers().firstValue("ETag").orElseThrow();
        long user = jdbc.sql("SELECT MIN(id) FROM users WHERE id NOT IN (SELECT user_id FROM group_members WHERE group_id = 1)")
                .query(Long.class).single();
        assertThat(send(request("/api/v1/groups/1/members").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"userId\":" + user + "}"))).statusCode()).isEqualTo(201);

        HttpResponse<String> after = send(request("/api/v1/groups/1").header("If-None-Match", tag));
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(json.readTree(after.body()).get("version").asLong())
                .isEqualTo(json.readTree(before.body()).get("version").asLong());
        assertThat(json.readTree(after.body()).get("memberCount").asLong())
                .isEqualTo(json.readTree(before.body()).get("memberCount").asLong() + 1);
        assertThat(after.headers().firstValue("ETag")).isPresent().get().isNotEqualTo(tag);
        // and neither is served from the old read model's bytes
        assertThat(Group.parseFrom(sendBytes(request("/api/v1/groups/1").header("Accept", PROTOBUF)).body())
                .getMemberCount()).isEqualTo(binaryBefore.getMemberCount() + 1);
        HttpResponse<String> page = send(request("/api/v1/groups?page_size=5").header("If-None-Match", pageTag));
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("ETag")).isPresent().get().isNotEqualTo(pageTag);
        assertThat(json.readTree(page.body()).get("groups").get(0).get("memberCount").asLong())
                .isEqualTo(json.readTree(after.body()).get("memberCount").asLong());
    }

    @Test
    void pagesCarryAWeakTagAndWritesNone() throws Exception {
        HttpResponse<String> page = send(request("/api/v1/groups?page_size=5"));
        String weak = page.headers().firstValue("ETag").orElseThrow();
        assertThat(weak).startsWith("W/\"");
        assertThat(send(request("/api/v1/groups?page_size=5").header("If-None-Match", weak)).statusCode()).isEqualTo(304);
        assertThat(send(request("/api/v1/groups?page_size=6").header("If-None-Match", weak)).statusCode()).isEqualTo(200);

        HttpResponse<String> created = send(request("/api/v1/users").header("Content-Type", "application/json")
                .header("Authorization", bearer(WRITER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Tag Less\",\"email\":\"tag.less@example.test\"}")));
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.headers().firstValue("ETag")).isEmpty();
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** The rows of {@link #CONDITIONALS} that send {@code field}. */
    private static List<Conditional> conditionals(String field) {
        return CONDITIONALS.stream().filter(row -> row.field().equals(field)).toList();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(BOUND);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        try (HttpClient client = client()) {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static HttpResponse<byte[]> sendBytes(HttpRequest.Builder request) throws Exception {
        try (HttpClient client = client()) {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        }
    }

    private static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(BOUND).build();
    }

    /** The field names an answer's Vary lists, lowercased (Accept-Encoding is not Accept). */
    private static java.util.Set<String> varyFields(HttpResponse<?> response) {
        java.util.Set<String> fields = new java.util.HashSet<>();
        for (String value : response.headers().allValues("Vary")) {
            for (String field : value.split(",")) {
                fields.add(field.trim().toLowerCase(java.util.Locale.ROOT));
            }
        }
        return fields;
    }

    private static byte[] gunzip(byte[] body) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }
}
