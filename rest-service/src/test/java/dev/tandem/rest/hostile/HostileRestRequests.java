package dev.tandem.rest.hostile;

import dev.tandem.rest.hostile.RawHttp.Framing;
import dev.tandem.rest.hostile.RestOperation.Field;
import dev.tandem.rest.hostile.RestOperation.Kind;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The table of hostile requests: for every operation, each way a client can get a request wrong
 * on purpose or by accident, and what the service must answer. Generated rather than written out,
 * so that a new operation or field is attacked in every way at once.
 *
 * <p>Why one file of ~500 lines: it is one table, read top to bottom; split by operation, a new
 * kind of attack would have to be added in every part.
 */
final class HostileRestRequests {

    /** tandem.limits.max-request-bytes (tandem-domain.yml). */
    static final int MAX_REQUEST_BYTES = 64 * 1024;
    /** tandem.limits.max-header-bytes (tandem-domain.yml), Tomcat's limit on request line + headers. */
    static final int MAX_HEADER_BYTES = 8 * 1024;
    /** spring.jackson.factory.constraints.read.max-nesting-depth (application.yml). */
    static final int MAX_NESTING_DEPTH = 32;
    /** spring.jackson.factory.constraints.read.max-string-length (application.yml). */
    static final int MAX_STRING_LENGTH = 10_000;
    /** spring.jackson.factory.constraints.read.max-number-length (application.yml). */
    static final int MAX_NUMBER_LENGTH = 50;

    static final String JSON = "application/json";
    static final String PROTOBUF = "application/x-protobuf";

    /**
     * What the service must answer.
     *
     * @param status         the HTTP status
     * @param code           the problem's gRPC code
     * @param fields         the proto paths its fieldViolations must name (exactly); null: not checked
     * @param detailContains a phrase the detail must contain; null: not checked
     */
    record Expect(int status, String code, List<String> fields, String detailContains) {

        static Expect invalid(String... fields) {
            return new Expect(400, "INVALID_ARGUMENT", List.of(fields), null);
        }

        static Expect invalidBecause(String detailContains, String... fields) {
            return new Expect(400, "INVALID_ARGUMENT", List.of(fields), detailContains);
        }

        static Expect tooLarge() {
            return new Expect(413, "RESOURCE_EXHAUSTED", List.of(), "larger than the limit of " + MAX_REQUEST_BYTES);
        }

        static Expect unsupportedMediaType() {
            return new Expect(415, "INVALID_ARGUMENT", null, null);
        }

        static Expect notFound() {
            return new Expect(404, "NOT_FOUND", null, null);
        }

        /**
         * Refused by Tomcat while it parses the request, before any filter or servlet: the problem
         * comes from TomcatProblems, Tomcat's error report valve, with no field violations.
         */
        static Expect tomcat(int status) {
            return new Expect(status, "INVALID_ARGUMENT", List.of(), "could not be read");
        }

        /** A request head above Tomcat's limits: 431 RESOURCE_EXHAUSTED, as gRPC answers metadata above them. */
        static Expect headTooLarge() {
            return new Expect(431, "RESOURCE_EXHAUSTED", List.of(), "could not be read");
        }
    }

    /**
     * One request: the operation it attacks, and what is sent. {@code headers} are sent as given;
     * the Authorization header with the dev write token is always added (a hostile body must get
     * past authentication to reach the parser).
     */
    record Hostile(String name, RestOperation operation, String method, String target, List<String> headers,
                   byte[] body, Framing framing, Expect expect) {

        @Override
        public String toString() {
            return operation + ": " + name;
        }
    }

    private HostileRestRequests() {
    }

    static List<Hostile> all() {
        List<Hostile> all = new ArrayList<>();
        for (RestOperation operation : RestOperation.values()) {
            if (operation.hasBody()) {
                all.addAll(bodies(operation));
                all.addAll(protobufBodies(operation));
                all.addAll(contentTypes(operation));
                for (Field field : operation.fields) {
                    all.addAll(fieldValues(operation, field));
                }
            } else {
                all.addAll(bodiesWhereNoneIsRead(operation));
            }
            all.addAll(pathVariables(operation));
            all.addAll(oversizedHead(operation));
            all.add(trace(operation));
        }
        all.addAll(queryParameters());
        return all;
    }

    // ---- request bodies ------------------------------------------------------------------------

    private static List<Hostile> bodies(RestOperation op) {
        List<Hostile> cases = new ArrayList<>();
        String valid = op.validBody();
        Field top = op.firstTopLevel();
        byte[] padded = pad(valid, MAX_REQUEST_BYTES + 1);

        // A request that would succeed, made too large with whitespace: refused for its size alone.
        cases.add(body(op, "valid JSON padded to the limit + 1 byte, Content-Length", padded, Framing.CONTENT_LENGTH,
                Expect.tooLarge()));
        cases.add(body(op, "valid JSON padded to the limit + 1 byte, chunked (counted while read)", padded,
                Framing.CHUNKED, Expect.tooLarge()));
        cases.add(body(op, "1 MiB body, chunked", pad(valid, 1024 * 1024), Framing.CHUNKED, Expect.tooLarge()));
        cases.add(body(op, "Content-Length of 10 GB declared, no body sent (refused before reading)",
                new byte[0], Framing.DECLARED_ONLY, Expect.tooLarge(), "Content-Length: 10000000000"));

        cases.add(body(op, "empty body", "", Expect.invalidBecause("request body is required")));
        cases.add(body(op, "whitespace only", "  \r\n\t ", Expect.invalidBecause("request body is required")));
        cases.add(body(op, "JSON null", "null", Expect.invalidBecause("request body is required")));
        cases.add(body(op, "an array instead of an object", "[]", Expect.invalidBecause("must be an object")));
        cases.add(body(op, "a string instead of an object", "\"hello\"", Expect.invalid()));
        cases.add(body(op, "a number instead of an object", "42", Expect.invalid()));
        cases.add(body(op, "truncated JSON", valid.substring(0, valid.length() - 1), Expect.invalidBecause("not valid JSON")));
        cases.add(body(op, "not JSON at all", "name=Ann&email=ann@example.test", Expect.invalidBecause("not valid JSON")));
        cases.add(body(op, "NUL bytes", new byte[]{0, 0, 0, 0}, Framing.CONTENT_LENGTH, Expect.invalidBecause("not valid JSON")));
        cases.add(body(op, "random bytes", randomBytes(512), Framing.CONTENT_LENGTH, Expect.invalid()));
        cases.add(body(op, "JSON with comments", "/* hi */ " + valid, Expect.invalidBecause("not valid JSON")));
        cases.add(body(op, "two JSON documents", valid + valid, Expect.invalid()));
        cases.add(body(op, "single-quoted JSON", valid.replace('"', '\''), Expect.invalidBecause("not valid JSON")));

        // Depth: the parser refuses past the limit however the depth is spent.
        String deep = "[".repeat(MAX_NESTING_DEPTH + 8) + "]".repeat(MAX_NESTING_DEPTH + 8);
        cases.add(body(op, "nested " + (MAX_NESTING_DEPTH + 8) + " deep at the root", deep, Expect.invalid()));
        cases.add(body(op, "nested " + (MAX_NESTING_DEPTH + 8) + " deep in a field",
                "{\"" + top.name() + "\":" + deep + "}", Expect.invalid(top.proto())));
        String veryDeep = "[".repeat(30_000) + "]".repeat(30_000);
        cases.add(body(op, "nested 30000 deep (just under the size limit)", veryDeep, Expect.invalid()));

        // Size within the body limit: many fields, a huge array, a huge string, a huge number.
        String manyFields = IntStream.range(0, 5000).mapToObj(i -> "\"f" + i + "\":0").collect(Collectors.joining(",", "{", "}"));
        cases.add(body(op, "5000 unknown fields", manyFields, Expect.invalid("f0")));
        String hugeArray = IntStream.range(0, 20_000).mapToObj(i -> "0").collect(Collectors.joining(",", "[", "]"));
        cases.add(body(op, "an array of 20000 numbers as a field", "{\"" + top.name() + "\":" + hugeArray + "}",
                Expect.invalid(top.proto())));
        cases.add(body(op, "an array of 20000 numbers as the body", hugeArray, Expect.invalid()));
        Field text = op.firstString();
        String longString = "\"" + "a".repeat(MAX_STRING_LENGTH + 1) + "\"";
        if (text != null) {
            cases.add(body(op, "a string of " + (MAX_STRING_LENGTH + 1) + " characters in " + text.json(),
                    op.bodyWith(Map.of(text.json(), longString)), Expect.invalidBecause("string value length", text.proto())));
        }
        cases.add(body(op, "a string of " + (MAX_STRING_LENGTH + 1) + " characters as an unknown field's name",
                "{" + longString + ":1}", Expect.invalid()));
        cases.add(body(op, "a number of " + (MAX_NUMBER_LENGTH + 1) + " digits in " + top.json(),
                op.bodyWith(Map.of(top.json(), "1".repeat(MAX_NUMBER_LENGTH + 1))),
                Expect.invalidBecause("number value length")));

        // Fields: unknown, duplicated, missing, null.
        cases.add(body(op, "an unknown field", valid.substring(0, valid.length() - 1) + ",\"nickname\":\"x\"}",
                Expect.invalid("nickname")));
        cases.add(body(op, "a duplicated field", "{\"" + top.name() + "\":" + top.valid() + "," + valid.substring(1),
                Expect.invalidBecause("more than once", top.proto())));
        // One field under its JSON name and its proto name: protobuf's JSON parser refuses it as a key given
        // twice; with Jackson's aliases the last one silently won ({"ownerId":1,"owner_id":2} made owner 2).
        for (Field field : op.fields) {
            if (field.topLevel() && !field.json().equals(field.proto())) {
                cases.add(body(op, "a field under both its names (" + field.json() + " and " + field.proto() + ")",
                        valid.substring(0, valid.length() - 1) + ",\"" + field.proto() + "\":" + field.valid() + "}",
                        Expect.invalidBecause("more than once", field.proto())));
            }
        }
        if (op == RestOperation.UPDATE_GROUP) {
            // Jackson skips output-only fields of the group (AIP-134) token by token: the depth
            // limit applies there too.
            cases.add(body(op, "nested " + (MAX_NESTING_DEPTH + 8) + " deep in an ignored output-only field",
                    "{\"group\":{\"nextSessions\":" + deep + "},\"updateMask\":\"name\"}",
                    Expect.invalidBecause("nesting depth", "group")));
            cases.add(body(op, "a duplicated nested field",
                    "{\"group\":{\"name\":\"Graph\",\"name\":\"Graph theory\"},\"updateMask\":\"name\"}",
                    Expect.invalidBecause("more than once", "group.name")));
        }
        cases.add(body(op, "no fields", "{}", Expect.invalid(op.requiredFields().toArray(String[]::new))));
        String allNull = op.bodyWith(op.fields.stream().collect(Collectors.toMap(Field::json, f -> "null")));
        cases.add(body(op, "every field null", allNull, Expect.invalid(op.requiredFields().toArray(String[]::new))));
        return cases;
    }

    /**
     * A body in the protobuf representation (README, "Protobuf over REST") that is not the request
     * message is refused as a JSON body that is not JSON: 400 naming the message it is not. The empty
     * body is the empty message (protobuf encodes it so), and a field the message does not have is
     * skipped, so both are the request without its fields; and the size limit is the same.
     */
    private static List<Hostile> protobufBodies(RestOperation op) {
        List<Hostile> cases = new ArrayList<>();
        String notTheMessage = "not a valid protobuf encoding of tandem.v1." + java.util.Arrays.stream(op.name().split("_"))
                .map(word -> word.charAt(0) + word.substring(1).toLowerCase(java.util.Locale.ROOT))
                .collect(Collectors.joining()) + "Request";
        String[] required = op.requiredFields().toArray(String[]::new);
        cases.add(protobuf(op, "empty body", new byte[0], Framing.CONTENT_LENGTH, Expect.invalid(required)));
        cases.add(protobuf(op, "only an unknown field (99 = 1)", new byte[] {(byte) 0x98, 0x06, 0x01},
                Framing.CONTENT_LENGTH, Expect.invalid(required)));
        cases.add(protobuf(op, "a length-delimited field 1 whose length runs past the end", new byte[] {0x0a, 0x05, 'a'},
                Framing.CONTENT_LENGTH, Expect.invalidBecause(notTheMessage)));
        cases.add(protobuf(op, "a varint that never ends", new byte[] {0x08, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
                Framing.CONTENT_LENGTH, Expect.invalidBecause(notTheMessage)));
        cases.add(protobuf(op, "an end-group tag that no group opened", new byte[] {0x0c}, Framing.CONTENT_LENGTH,
                Expect.invalidBecause(notTheMessage)));
        cases.add(protobuf(op, "field 0 (no field has number 0)", new byte[] {0x00, 0x01}, Framing.CONTENT_LENGTH,
                Expect.invalidBecause(notTheMessage)));
        cases.add(protobuf(op, "a length of 2^31 - 1 declared in field 1", new byte[] {0x0a, -1, -1, -1, -1, 0x07},
                Framing.CONTENT_LENGTH, Expect.invalidBecause(notTheMessage)));
        // an unknown bytes field (99) holding the rest: one byte over the limit, as sent and while read
        byte[] overLimit = new byte[MAX_REQUEST_BYTES + 1];
        byte[] head = {(byte) 0x9a, 0x06, (byte) 0xfc, (byte) 0xff, 0x03};   // field 99, wire type 2, length 65532
        System.arraycopy(head, 0, overLimit, 0, head.length);
        cases.add(protobuf(op, "an unknown field's bytes past the limit, Content-Length", overLimit, Framing.CONTENT_LENGTH,
                Expect.tooLarge()));
        cases.add(protobuf(op, "an unknown field's bytes past the limit, chunked", overLimit, Framing.CHUNKED,
                Expect.tooLarge()));
        return cases;
    }

    private static Hostile protobuf(RestOperation op, String name, byte[] body, Framing framing, Expect expect) {
        return new Hostile("protobuf: " + name, op, op.method, op.validTarget(), List.of("Content-Type: " + PROTOBUF),
                body, framing, expect);
    }

    private static List<Hostile> contentTypes(RestOperation op) {
        List<Hostile> cases = new ArrayList<>();
        byte[] valid = op.validBody().getBytes(StandardCharsets.UTF_8);
        for (String type : List.of("text/plain", "application/xml", "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x", "application/octet-stream", "application/grpc", "*/*", "garbage")) {
            cases.add(new Hostile("valid JSON sent as Content-Type " + type, op, op.method, op.validTarget(),
                    List.of("Content-Type: " + type), valid, Framing.CONTENT_LENGTH,
                    Expect.unsupportedMediaType()));
        }
        // Parsed before any handler ran by Boot's form filter (PUT, PATCH, DELETE), whose failure on
        // a malformed escape was a 500 from Boot's error page: no endpoint takes forms, none is parsed.
        cases.add(new Hostile("a form body with a malformed escape", op, op.method, op.validTarget(),
                List.of("Content-Type: application/x-www-form-urlencoded"), "name=100%".getBytes(StandardCharsets.US_ASCII),
                Framing.CONTENT_LENGTH, Expect.unsupportedMediaType()));
        cases.add(new Hostile("valid JSON without a Content-Type", op, op.method, op.validTarget(), List.of(), valid,
                Framing.CONTENT_LENGTH, Expect.unsupportedMediaType()));
        cases.add(new Hostile("valid JSON with an unknown charset", op, op.method, op.validTarget(),
                List.of("Content-Type: application/json; charset=no-such-charset"), valid, Framing.CONTENT_LENGTH,
                Expect.unsupportedMediaType()));
        // A compressed request body is not read (RFC 9110 15.5.16: 415, Accept-Encoding: identity):
        // before, a body labelled gzip was read as it was (a plain one applied, a gzipped one "not JSON")
        for (String encoding : List.of("gzip", "br", "deflate, gzip")) {
            cases.add(new Hostile("valid JSON labelled Content-Encoding: " + encoding, op, op.method, op.validTarget(),
                    List.of("Content-Type: " + JSON, "Content-Encoding: " + encoding), valid, Framing.CONTENT_LENGTH,
                    new Expect(415, "INVALID_ARGUMENT", List.of(), "Content-Encoding")));
        }
        return cases;
    }

    /** Each value a client can get wrong in one field, the rest of the request being valid. */
    private static List<Hostile> fieldValues(RestOperation op, Field field) {
        List<Hostile> cases = new ArrayList<>();
        String f = field.proto();
        cases.add(value(op, field, "an object", "{}", Expect.invalid(f)));
        cases.add(value(op, field, "an array", "[1]", Expect.invalid(f)));
        cases.add(value(op, field, "an empty array", "[]", Expect.invalid(f)));
        // Invalid UTF-8 inside a JSON string: 0xC3 0x28 (a lead byte without its continuation).
        cases.add(new Hostile(field.json() + " holding bytes that are not UTF-8", op, op.method, op.validTarget(),
                List.of("Content-Type: " + JSON),
                splice(op, field, new byte[]{'"', 'a', (byte) 0xC3, 0x28, 'b', '"'}), Framing.CONTENT_LENGTH,
                Expect.invalidBecause("not valid JSON")));
        cases.add(new Hostile(field.json() + " holding a lone UTF-8 continuation byte", op, op.method,
                op.validTarget(), List.of("Content-Type: " + JSON),
                splice(op, field, new byte[]{'"', (byte) 0x80, '"'}), Framing.CONTENT_LENGTH,
                Expect.invalidBecause("not valid JSON")));
        // Valid JSON escapes, but not a Unicode string: UTF-8 cannot encode a lone surrogate.
        if (field.kind() == Kind.STRING) {
            cases.add(value(op, field, "an unpaired surrogate escape", "\"a\\ud800b\"",
                    Expect.invalidBecause(f + ": is not Unicode text", f)));
            // Each named for what it is: these were once all called "not Unicode text".
            for (String notAString : List.of("true", "false", "123456", "1.5")) {
                cases.add(value(op, field, notAString, notAString, Expect.invalidBecause(f + ": must be a string", f)));
            }
            return cases;
        }
        cases.add(value(op, field, "an unpaired surrogate escape", "\"a\\ud800b\"", Expect.invalid(f)));
        cases.add(value(op, field, "true", "true", Expect.invalid(f)));
        cases.add(value(op, field, "false", "false", Expect.invalid(f)));
        // Numbers out of range and numbers that are not integers, in int32 and int64 fields.
        cases.add(value(op, field, "a string that is not a number", "\"ten\"", Expect.invalid(f)));
        cases.add(value(op, field, "2^63 (int64 overflow)", "9223372036854775808", Expect.invalid(f)));
        cases.add(value(op, field, "-2^63 - 1 (int64 underflow)", "-9223372036854775809", Expect.invalid(f)));
        cases.add(value(op, field, "2^63 as a string", "\"9223372036854775808\"", Expect.invalid(f)));
        cases.add(value(op, field, "-1", "-1", Expect.invalid(f)));
        cases.add(value(op, field, "1e400", "1e400", Expect.invalid(f)));
        cases.add(value(op, field, "1e2 (a float, even though integral)", "1e2", Expect.invalid(f)));
        cases.add(value(op, field, "2.5", "2.5", Expect.invalid(f)));
        cases.add(value(op, field, "\"NaN\"", "\"NaN\"", Expect.invalid(f)));
        cases.add(value(op, field, "\"Infinity\"", "\"Infinity\"", Expect.invalid(f)));
        cases.add(value(op, field, "\"-Infinity\"", "\"-Infinity\"", Expect.invalid(f)));
        cases.add(value(op, field, "bare NaN (not JSON)", "NaN", Expect.invalidBecause("not valid JSON")));
        cases.add(value(op, field, "bare Infinity (not JSON)", "Infinity", Expect.invalidBecause("not valid JSON")));
        cases.add(value(op, field, "a hexadecimal number (not JSON)", "0x10", Expect.invalidBecause("not valid JSON")));
        cases.add(value(op, field, "a leading zero (not JSON)", "010", Expect.invalidBecause("not valid JSON")));
        // A string holding the integer: ASCII decimal digits only, as gRPC's integers and path ids are. Java's
        // parsers read any script's digits, and Jackson trimmed the spaces around them: all three were accepted.
        if (field.valid().matches("[0-9]+")) {
            cases.add(value(op, field, "its value in Arabic-Indic digits, as a string",
                    "\"" + inDigitsOf(field.valid(), '\u0660') + "\"", Expect.invalid(f)));
            cases.add(value(op, field, "its value in fullwidth digits, as a string",
                    "\"" + inDigitsOf(field.valid(), '\uFF10') + "\"", Expect.invalid(f)));
        }
        cases.add(value(op, field, "its value as a string with spaces around it", "\" " + field.valid() + " \"",
                Expect.invalid(f)));
        cases.add(value(op, field, "its value as a string with a newline after it", "\"" + field.valid() + "\\n\"",
                Expect.invalid(f)));
        if (field.kind() == Kind.INT32) {
            cases.add(value(op, field, "2^31 (int32 overflow)", "2147483648", Expect.invalid(f)));
            cases.add(value(op, field, "-2^31 - 1 (int32 underflow)", "-2147483649", Expect.invalid(f)));
            cases.add(value(op, field, "2^31 as a string", "\"2147483648\"", Expect.invalid(f)));
            cases.add(value(op, field, "-2^31", "-2147483648", Expect.invalid(f)));
        }
        return cases;
    }

    // ---- operations without a body -------------------------------------------------------------

    /** A body where none belongs: ignored if small (never parsed), refused by the size limit if not. */
    private static List<Hostile> bodiesWhereNoneIsRead(RestOperation op) {
        byte[] big = pad("{}", MAX_REQUEST_BYTES + 1);
        return List.of(
                body(op, "a body above the limit where none is expected, Content-Length", big, Framing.CONTENT_LENGTH,
                        Expect.tooLarge()),
                body(op, "a Content-Length of 10 GB declared, no body sent", new byte[0], Framing.DECLARED_ONLY,
                        Expect.tooLarge(), "Content-Length: 10000000000"));
    }

    /**
     * TRACE on the operation's route: Tomcat refuses it (405) before any servlet runs, and the
     * refusal went to Boot's error page, whose answer was its own JSON, not problem+json.
     */
    private static Hostile trace(RestOperation op) {
        return new Hostile("TRACE", op, "TRACE", op.validTarget(), List.of(), null, Framing.CONTENT_LENGTH,
                new Expect(405, "UNIMPLEMENTED", List.of(), "TRACE"));
    }

    // ---- path variables ------------------------------------------------------------------------

    private static List<Hostile> pathVariables(RestOperation op) {
        List<Hostile> cases = new ArrayList<>();
        for (String variable : op.pathVariables()) {
            Map<String, Expect> values = new java.util.LinkedHashMap<>();
            values.put("9223372036854775808", Expect.invalidBecause("64-bit integer", variable));
            values.put("-9223372036854775809", Expect.invalidBecause("64-bit integer", variable));
            values.put("1" + "0".repeat(1000), Expect.invalidBecause("64-bit integer", variable));
            values.put("1e400", Expect.invalid(variable));
            values.put("1.5", Expect.invalid(variable));
            values.put("NaN", Expect.invalid(variable));
            values.put("Infinity", Expect.invalid(variable));
            values.put("0x10", Expect.invalid(variable));
            values.put("%20", Expect.invalid(variable));
            // Percent-encoded bytes that are not UTF-8: Tomcat decodes the path and refuses them.
            values.put("%FF", Expect.tomcat(400));
            values.put("%C3%28", Expect.tomcat(400));
            values.put("%ED%A0%80", Expect.tomcat(400));
            // A percent sign that starts no escape, a NUL byte and an encoded slash: refused by Tomcat too.
            values.put("%G1", Expect.tomcat(400));
            values.put("%00", Expect.tomcat(400));
            values.put("1%2F2", Expect.tomcat(400));
            // Raw bytes above 0x7F in the request line, not even percent-encoded.
            values.put("\u00ff\u00fe", Expect.tomcat(400));
            // Negative and zero ids parse; no such group or user exists. Writes validate their
            // body first, so these requests are otherwise valid.
            values.put("-1", Expect.notFound());
            values.put("0", Expect.notFound());
            for (Map.Entry<String, Expect> value : values.entrySet()) {
                String shown = value.getKey().length() > 30 ? value.getKey().substring(0, 12) + "... ("
                        + value.getKey().length() + " characters)" : value.getKey();
                cases.add(new Hostile("path variable " + variable + " = " + shown, op, op.method,
                        op.targetWith(variable, value.getKey()), op.hasBody() ? List.of("Content-Type: " + JSON) : List.of(),
                        op.hasBody() ? op.validBody().getBytes(StandardCharsets.UTF_8) : null, Framing.CONTENT_LENGTH,
                        value.getValue()));
            }
        }
        return cases;
    }

    // ---- query parameters ----------------------------------------------------------------------

    /**
     * Parameters as only HTTP can spoil them: numbers that are no numbers or overflow, bytes that do
     * not decode. A value out of the domain's range (page_size 1001, limit 101, a subject of 51
     * characters) is one row of the wires' scenario table (system-tests GroupScenarios), not one here.
     */
    private static List<Hostile> queryParameters() {
        List<Hostile> cases = new ArrayList<>();
        RestOperation list = RestOperation.LIST_GROUPS;
        for (String size : List.of("2147483648", "-2147483649", "9223372036854775808", "1e400", "1.5", "NaN",
                "Infinity", "ten", "0x10", "%FF")) {
            cases.add(query(list, "page_size=" + size, "/api/v1/groups?page_size=" + size,
                    size.equals("%FF") ? Expect.invalidBecause("percent-encoded UTF-8") : Expect.invalidBecause("32-bit integer", "page_size")));
        }
        cases.add(query(list, "pageSize=2147483648", "/api/v1/groups?pageSize=2147483648", Expect.invalid("pageSize")));
        // One parameter under its proto name and its lowerCamelCase one is one parameter given twice:
        // the proto name's value won (page_size=5&pageSize=900 paged by 5), or the other failed alone.
        for (String both : List.of("page_size=5&pageSize=900", "page_size=5&pageSize=abc", "pageSize=5&page_size=5")) {
            cases.add(query(list, both, "/api/v1/groups?" + both, Expect.invalidBecause("given once", "page_size")));
        }
        cases.add(query(list, "page_token=&pageToken=x", "/api/v1/groups?page_token=&pageToken=x",
                Expect.invalidBecause("given once", "page_token")));

        // Page tokens as only HTTP can spoil them: what a token itself may be (garbage, another
        // subject's, 4 KB of it) is the domain's rule, GroupServiceTest.foreignAndMalformedTokensAreInvalidArguments.
        cases.add(query(list, "page_token of 100 KB (a request line above Tomcat's limit)",
                "/api/v1/groups?page_token=" + "A".repeat(100 * 1024), Expect.headTooLarge()));
        // Tomcat cannot decode it, so it names no parameter: the name might be what failed to decode.
        cases.add(query(list, "page_token with percent-encoded invalid UTF-8", "/api/v1/groups?page_token=%C3%28",
                Expect.invalidBecause("percent-encoded UTF-8")));

        // Query parameters of other operations.
        RestOperation board = RestOperation.GET_LEADERBOARD;
        for (String limit : List.of("2147483648", "9223372036854775808", "1e400", "1.5", "NaN")) {
            cases.add(query(board, "limit=" + limit, "/api/v1/leaderboard?limit=" + limit,
                    Expect.invalidBecause("32-bit integer", "limit")));
        }
        RestOperation delete = RestOperation.DELETE_GROUP;
        for (String version : List.of("9223372036854775808", "1e400", "1.5", "NaN")) {
            cases.add(query(delete, "expected_version=" + version, "/api/v1/groups/%GROUP%?expected_version=" + version,
                    Expect.invalidBecause("64-bit integer", "expected_version")));
        }
        cases.add(query(delete, "expected_version=-1", "/api/v1/groups/%GROUP%?expected_version=-1",
                Expect.invalid("expected_version")));
        cases.add(query(delete, "expected_version=0&expectedVersion=0", "/api/v1/groups/%GROUP%?expected_version=0&expectedVersion=0",
                Expect.invalidBecause("given once", "expected_version")));

        // Percent-encoded invalid UTF-8 in a string parameter: Tomcat decodes query parameters
        // lazily, when Spring asks for them, and its failure becomes a 400 problem.
        for (RestOperation op : List.of(list, board)) {
            for (String bad : List.of("%FF", "%C3%28", "%ED%A0%80", "%G1", "%")) {
                cases.add(query(op, "subject=" + bad, op.validTarget().replace("subject=physics", "subject=" + bad),
                        Expect.invalidBecause("percent-encoded UTF-8")));
            }
        }
        return cases;
    }

    // ---- request line and headers --------------------------------------------------------------

    /**
     * Above tandem.limits.max-header-bytes, Tomcat refuses the request while reading it, before any
     * filter or servlet, with 400; TomcatProblems answers a request line or header section too large,
     * or too many headers, 431 RESOURCE_EXHAUSTED as gRPC does for metadata, and a malformed header 400.
     */
    private static List<Hostile> oversizedHead(RestOperation op) {
        String separator = op.validTarget().contains("?") ? "&" : "?";
        List<String> baseHeaders = op.hasBody() ? List.of("Content-Type: " + JSON) : List.of();
        byte[] body = op.hasBody() ? op.validBody().getBytes(StandardCharsets.UTF_8) : null;
        List<String> bigHeader = new ArrayList<>(baseHeaders);
        bigHeader.add("X-Filler: " + "a".repeat(MAX_HEADER_BYTES * 2));
        List<String> manyHeaders = new ArrayList<>(baseHeaders);
        IntStream.range(0, 200).forEach(i -> manyHeaders.add("X-Filler-" + i + ": " + i));
        List<String> badHeaderBytes = new ArrayList<>(baseHeaders);
        badHeaderBytes.add("X-Filler: \u0000\u00ff\u0001");
        return List.of(
                new Hostile("a query string of " + MAX_HEADER_BYTES * 2 + " characters", op, op.method,
                        op.validTarget() + separator + "filler=" + "a".repeat(MAX_HEADER_BYTES * 2), baseHeaders, body,
                        Framing.CONTENT_LENGTH, Expect.headTooLarge()),
                new Hostile("a header of " + MAX_HEADER_BYTES * 2 + " characters", op, op.method, op.validTarget(),
                        bigHeader, body, Framing.CONTENT_LENGTH, Expect.headTooLarge()),
                new Hostile("200 headers (Tomcat's default maximum is 100)", op, op.method, op.validTarget(),
                        manyHeaders, body, Framing.CONTENT_LENGTH, Expect.headTooLarge()),
                new Hostile("a header with control characters", op, op.method, op.validTarget(),
                        badHeaderBytes, body, Framing.CONTENT_LENGTH, Expect.tomcat(400)));
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static Hostile body(RestOperation op, String name, String body, Expect expect) {
        return body(op, name, body.getBytes(StandardCharsets.UTF_8), Framing.CONTENT_LENGTH, expect);
    }

    private static Hostile body(RestOperation op, String name, byte[] body, Framing framing, Expect expect,
                                String... extraHeaders) {
        List<String> headers = new ArrayList<>(List.of("Content-Type: " + JSON));
        headers.addAll(List.of(extraHeaders));
        if (framing == Framing.DECLARED_ONLY) {
            // The declared length is in extraHeaders; RawHttp sends the (empty) body's own length otherwise.
            return new Hostile(name, op, op.method, op.validTarget(), headers, null, framing, expect);
        }
        return new Hostile(name, op, op.method, op.validTarget(), headers, body, framing, expect);
    }

    private static Hostile value(RestOperation op, Field field, String name, String json, Expect expect) {
        return new Hostile(field.json() + " = " + name, op, op.method, op.validTarget(),
                List.of("Content-Type: " + JSON),
                op.bodyWith(Map.of(field.json(), json)).getBytes(StandardCharsets.UTF_8), Framing.CONTENT_LENGTH, expect);
    }

    private static Hostile query(RestOperation op, String name, String target, Expect expect) {
        return new Hostile(name, op, op.method, target, List.of(), null, Framing.CONTENT_LENGTH, expect);
    }

    /** The valid body with one field's value replaced by raw bytes. */
    private static byte[] splice(RestOperation op, Field field, byte[] raw) {
        String marker = "\u0001MARK\u0001";
        byte[] body = op.bodyWith(Map.of(field.json(), marker)).getBytes(StandardCharsets.UTF_8);
        byte[] mark = marker.getBytes(StandardCharsets.UTF_8);
        int at = indexOf(body, mark);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(body, 0, at);
        out.writeBytes(raw);
        out.write(body, at + mark.length, body.length - at - mark.length);
        return out.toByteArray();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalArgumentException("marker not found");
    }

    /** ASCII {@code digits} written with the digits of another script, whose zero is {@code zero}. */
    private static String inDigitsOf(String digits, char zero) {
        StringBuilder out = new StringBuilder();
        digits.chars().forEach(c -> out.append((char) (zero + c - '0')));
        return out.toString();
    }

    /** {@code json} followed by spaces up to {@code size} bytes: still the same JSON value. */
    static byte[] pad(String json, int size) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        byte[] padded = new byte[size];
        System.arraycopy(bytes, 0, padded, 0, bytes.length);
        java.util.Arrays.fill(padded, bytes.length, size, (byte) ' ');
        return padded;
    }

    /** Deterministic, so that a failure can be replayed. */
    static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new java.util.Random(n).nextBytes(bytes);
        return bytes;
    }
}
