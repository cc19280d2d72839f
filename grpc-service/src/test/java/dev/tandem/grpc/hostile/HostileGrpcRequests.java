package dev.tandem.grpc.hostile;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.FieldMask;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import dev.tandem.grpc.hostile.GrpcOperation.Rows;
import dev.tandem.grpc.hostile.GrpcOperation.Rule;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.UpdateGroupRequest;
import io.grpc.Status.Code;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.RESOURCE_EXHAUSTED;

/**
 * The table of hostile gRPC requests: for every RPC, bytes that do not parse, wire types that do
 * not match, strings that are not UTF-8, varints out of range, negative and huge ids, messages and
 * metadata above the limits, and for ListGroups bogus page tokens; each with the status the
 * service must answer. Requests are raw bytes built from the RPC's valid request, so that exactly
 * one thing is wrong in each.
 *
 * <p>Why one file of ~400 lines: it is one table, read top to bottom; split by RPC, a new kind of
 * attack would have to be added in every part.
 */
final class HostileGrpcRequests {

    /** tandem.limits.max-request-bytes (tandem-domain.yml), bound to the inbound message size. */
    static final int MAX_REQUEST_BYTES = 64 * 1024;
    /** tandem.limits.max-header-bytes (tandem-domain.yml), bound to the inbound metadata size. */
    static final int MAX_HEADER_BYTES = 8 * 1024;
    /** Protobuf's default recursion limit when parsing. */
    static final int PROTOBUF_RECURSION_LIMIT = 100;

    /**
     * What the service must answer.
     *
     * @param code            the status code
     * @param fields          the BadRequest fields (exactly); null when not checked (transport
     *                        refusals and parse failures carry no field)
     * @param messageContains a phrase the status message must contain; null when not checked
     * @param byTransport     refused by grpc-java itself before the service sees the call: no
     *                        google.rpc details, only the status
     */
    record Expect(Code code, List<String> fields, String messageContains, boolean byTransport) {

        static Expect of(Code code) {
            return new Expect(code, null, null, false);
        }

        static Expect invalid(String... fields) {
            return new Expect(INVALID_ARGUMENT, List.of(fields), null, false);
        }

        static Expect unparseable() {
            return new Expect(INVALID_ARGUMENT, List.of(), "is not a valid protobuf message", false);
        }

        static Expect tooLarge() {
            return new Expect(RESOURCE_EXHAUSTED, null, null, true);
        }
    }

    /**
     * One call: the RPC, its request as a function of the seeded rows, extra metadata, and what
     * must come back.
     */
    record Hostile(String name, GrpcOperation operation, Function<Rows, byte[]> request, Map<String, String> metadata,
                   Expect expect) {

        @Override
        public String toString() {
            return operation + ": " + name;
        }
    }

    private HostileGrpcRequests() {
    }

    static List<Hostile> all() {
        List<Hostile> all = new ArrayList<>();
        for (GrpcOperation op : GrpcOperation.values()) {
            all.addAll(unparseable(op));
            all.addAll(oversized(op));
            Code empty = emptyRequestCode(op);
            if (empty != null) {
                all.add(new Hostile("an empty message (every field absent)", op, rows -> new byte[0], Map.of(),
                        Expect.of(empty)));
            }
            for (Rule rule : op.rules) {
                all.addAll(field(op, rule));
            }
        }
        all.addAll(pageTokens());
        all.addAll(updateMasks());
        return all;
    }

    // ---- update masks --------------------------------------------------------------------------

    /**
     * A mask of many long unknown paths: each was echoed whole in its own violation, so the
     * trailers grew with the request (the domain's test has the bound).
     */
    private static List<Hostile> updateMasks() {
        FieldMask.Builder mask = FieldMask.newBuilder().addPaths("name");
        for (int i = 0; i < 100; i++) {
            mask.addPaths("p" + i + "_" + "x".repeat(200));
        }
        return List.of(new Hostile("update_mask of 100 unknown paths of 200 characters", GrpcOperation.UPDATE_GROUP,
                rows -> UpdateGroupRequest.newBuilder().setId(rows.group()).setGroup(Group.newBuilder().setName("Renamed"))
                        .setUpdateMask(mask).setExpectedVersion(1).build().toByteArray(),
                Map.of(), new Expect(INVALID_ARGUMENT, List.of("update_mask"), "and 97 more cannot be updated", false)));
    }

    // ---- bytes that are not a message ----------------------------------------------------------

    private static List<Hostile> unparseable(GrpcOperation op) {
        List<Hostile> cases = new ArrayList<>();
        cases.add(raw(op, "a tag whose varint never ends", bytes(0xff, 0xff, 0xff)));
        cases.add(raw(op, "a length-delimited field longer than the message", bytes(0x0a, 0x64, 'a', 'b')));
        cases.add(raw(op, "an 11-byte varint", bytes(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)));
        cases.add(raw(op, "wire type 6, which does not exist", bytes(0x0e, 0x00)));
        cases.add(raw(op, "wire type 7, which does not exist", bytes(0x0f, 0x00)));
        cases.add(raw(op, "an end-group without a start", bytes(0x7c)));
        cases.add(raw(op, "a start-group never closed", bytes(0x7b, 0x08, 0x01)));
        cases.add(raw(op, "field number 0", bytes(0x00, 0x01)));
        cases.add(raw(op, "a fixed64 cut short", bytes(0x79, 0x01, 0x02)));
        cases.add(raw(op, "random bytes", randomBytes(256)));
        // Unknown groups are parsed (to be kept as unknown fields), so their depth costs stack:
        // protobuf stops at its recursion limit.
        ByteArrayOutputStream deep = new ByteArrayOutputStream();
        int depth = PROTOBUF_RECURSION_LIMIT + 50;
        for (int i = 0; i < depth; i++) {
            deep.write(0x7b); // field 15, start group
        }
        for (int i = 0; i < depth; i++) {
            deep.write(0x7c); // field 15, end group
        }
        cases.add(raw(op, "unknown groups nested " + depth + " deep", deep.toByteArray()));
        return cases;
    }

    // ---- size ----------------------------------------------------------------------------------

    private static List<Hostile> oversized(GrpcOperation op) {
        List<Hostile> cases = new ArrayList<>();
        cases.add(new Hostile("the valid request padded with an unknown field to the limit + 1 byte", op,
                rows -> padded(op.valid.apply(rows), MAX_REQUEST_BYTES + 1), Map.of(), Expect.tooLarge()));
        cases.add(new Hostile("the valid request padded to 1 MiB", op,
                rows -> padded(op.valid.apply(rows), 1024 * 1024), Map.of(), Expect.tooLarge()));
        // Refused by the service (MetadataLimitInterceptor), below the transport's own cap: see
        // GrpcPortGarbageTest for metadata above that.
        Expect metadataTooLarge = new Expect(RESOURCE_EXHAUSTED, List.of(), "above the limit of " + MAX_HEADER_BYTES, false);
        cases.add(new Hostile("a metadata value of " + 2 * MAX_HEADER_BYTES + " bytes", op,
                rows -> op.valid.apply(rows).toByteArray(), Map.of("x-filler", "a".repeat(2 * MAX_HEADER_BYTES)),
                metadataTooLarge));
        Map<String, String> many = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 400; i++) {
            many.put("x-filler-" + i, "value-" + i);
        }
        cases.add(new Hostile("400 metadata entries (" + MAX_HEADER_BYTES + " bytes in all exceeded)", op,
                rows -> op.valid.apply(rows).toByteArray(), many, metadataTooLarge));
        return cases;
    }

    // ---- one field -----------------------------------------------------------------------------

    private static List<Hostile> field(GrpcOperation op, Rule rule) {
        List<Hostile> cases = new ArrayList<>();
        FieldDescriptor field = descriptor(op.requestType(), rule.path());
        int number = field.getNumber();
        Function<Rows, Message> valid = op.valid;

        if (rule.absent() != null) {
            Expect absent = rule.absent() == INVALID_ARGUMENT
                    ? Expect.invalid(rule.namedWhenAbsent().toArray(String[]::new)) : Expect.of(rule.absent());
            cases.add(new Hostile(rule.path() + " absent", op, rows -> replaced(valid.apply(rows), rule.path(), new byte[0]),
                    Map.of(), absent));
            // A field whose wire type is not its declared one is an unknown field (protobuf keeps
            // it aside, it does not fail): the request means what it means without the field.
            if (field.getJavaType() == FieldDescriptor.JavaType.INT || field.getJavaType() == FieldDescriptor.JavaType.LONG) {
                cases.add(new Hostile(rule.path() + " sent length-delimited instead of as a varint", op,
                        rows -> replaced(valid.apply(rows), rule.path(), lengthDelimited(number, "12".getBytes())),
                        Map.of(), absent));
                cases.add(new Hostile(rule.path() + " sent as fixed64 instead of as a varint", op,
                        rows -> replaced(valid.apply(rows), rule.path(), fixed64(number, 12)), Map.of(), absent));
                cases.add(new Hostile(rule.path() + " sent as fixed32 instead of as a varint", op,
                        rows -> replaced(valid.apply(rows), rule.path(), fixed32(number, 12)), Map.of(), absent));
            } else {
                cases.add(new Hostile(rule.path() + " sent as a varint instead of length-delimited", op,
                        rows -> replaced(valid.apply(rows), rule.path(), varint(number, 12)), Map.of(), absent));
            }
        }

        switch (field.getJavaType()) {
            case STRING -> {
                // Not UTF-8: a lead byte without its continuation, a lone continuation, an overlong
                // "/", a UTF-8-encoded surrogate, a byte that never occurs in UTF-8.
                for (byte[] bad : List.of(bytes('a', 0xc3, 0x28), bytes(0x80), bytes(0xc0, 0xaf),
                        bytes(0xed, 0xa0, 0x80), bytes(0xff))) {
                    cases.add(new Hostile(rule.path() + " holding " + hex(bad) + ", which is not UTF-8", op,
                            rows -> replaced(valid.apply(rows), rule.path(), lengthDelimited(number, bad)),
                            Map.of(), Expect.unparseable()));
                }
            }
            case INT -> {
                int invalid = rule.invalidInt32();
                // Protobuf keeps the low 32 bits of a varint read into an int32: 2^32 + n reads as n.
                cases.add(varintCase(op, rule, "2^32 + " + invalid + " (reads as " + invalid + ")",
                        (1L << 32) + invalid, expectFor(INVALID_ARGUMENT, rule.path())));
                cases.add(varintCase(op, rule, "2^31 (reads as -2^31)", 1L << 31, expectFor(rule.negative(), rule.path())));
                cases.add(varintCase(op, rule, "2^64 - 1 (reads as -1)", -1L, expectFor(rule.negative(), rule.path())));
                cases.add(varintCase(op, rule, "-2^31", Integer.MIN_VALUE, expectFor(rule.negative(), rule.path())));
                cases.add(varintCase(op, rule, "2^31 - 1", Integer.MAX_VALUE, expectFor(rule.huge(), rule.path())));
                cases.add(new Hostile(rule.path() + " as an 11-byte varint", op,
                        rows -> replaced(valid.apply(rows), rule.path(), elevenByteVarint(number)), Map.of(),
                        Expect.unparseable()));
            }
            case LONG -> {
                cases.add(varintCase(op, rule, "-1", -1L, expectFor(rule.negative(), rule.path())));
                cases.add(varintCase(op, rule, "-2^63", Long.MIN_VALUE, expectFor(rule.negative(), rule.path())));
                cases.add(varintCase(op, rule, "2^63 - 1", Long.MAX_VALUE, expectFor(rule.huge(), rule.path())));
                cases.add(new Hostile(rule.path() + " as an 11-byte varint", op,
                        rows -> replaced(valid.apply(rows), rule.path(), elevenByteVarint(number)), Map.of(),
                        Expect.unparseable()));
            }
            case MESSAGE -> {
                cases.add(new Hostile(rule.path() + " holding bytes that do not parse", op,
                        rows -> replaced(valid.apply(rows), rule.path(), lengthDelimited(number, bytes(0xff, 0xff))),
                        Map.of(), Expect.unparseable()));
                if (rule.path().equals("start_time")) {
                    for (Map.Entry<String, com.google.protobuf.Timestamp> bad : Map.of(
                            "seconds 2^63 - 1", com.google.protobuf.Timestamp.newBuilder().setSeconds(Long.MAX_VALUE).build(),
                            "seconds -2^63", com.google.protobuf.Timestamp.newBuilder().setSeconds(Long.MIN_VALUE).build(),
                            "nanos -1", com.google.protobuf.Timestamp.newBuilder().setSeconds(1_925_000_000L).setNanos(-1).build(),
                            "nanos 10^9", com.google.protobuf.Timestamp.newBuilder().setSeconds(1_925_000_000L).setNanos(1_000_000_000).build())
                            .entrySet()) {
                        cases.add(new Hostile("start_time with " + bad.getKey(), op,
                                rows -> replaced(valid.apply(rows), rule.path(), lengthDelimited(number, bad.getValue().toByteArray())),
                                Map.of(), Expect.invalid("start_time")));
                    }
                }
            }
            default -> throw new IllegalStateException("no attacks written for " + field);
        }
        return cases;
    }

    private static Hostile varintCase(GrpcOperation op, Rule rule, String name, long value, Expect expect) {
        int number = descriptor(op.requestType(), rule.path()).getNumber();
        return new Hostile(rule.path() + " = " + name, op,
                rows -> replaced(op.valid.apply(rows), rule.path(), varint(number, value)), Map.of(), expect);
    }

    /** The code for a field, with the field named when the domain rejects it as invalid. */
    private static Expect expectFor(Code code, String path) {
        return code == INVALID_ARGUMENT ? Expect.invalid(path) : Expect.of(code);
    }

    /** What an all-default request gets: the domain checks the request's own fields before any lookup. */
    private static Code emptyRequestCode(GrpcOperation op) {
        if (op.rules.stream().anyMatch(r -> r.absent() == INVALID_ARGUMENT)) {
            return INVALID_ARGUMENT;
        }
        return op.rules.stream().map(Rule::absent).filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }

    // ---- page tokens ---------------------------------------------------------------------------

    /**
     * A page token as only the transport can spoil it; what a token itself may be (garbage, another
     * subject's, 4 KB of it) is the domain's rule, GroupServiceTest.foreignAndMalformedTokensAreInvalidArguments.
     */
    private static List<Hostile> pageTokens() {
        List<Hostile> cases = new ArrayList<>();
        cases.add(new Hostile("page_token of 100 KB (above the message limit)", GrpcOperation.LIST_GROUPS,
                rows -> ListGroupsRequest.newBuilder().setPageToken("A".repeat(100 * 1024)).build().toByteArray(),
                Map.of(), Expect.tooLarge()));
        return cases;
    }

    // ---- encoding ------------------------------------------------------------------------------

    private static Hostile raw(GrpcOperation op, String name, byte[] bytes) {
        return new Hostile(name, op, rows -> bytes, Map.of(), Expect.unparseable());
    }

    static FieldDescriptor descriptor(Descriptor type, String path) {
        String[] parts = path.split("\\.", 2);
        FieldDescriptor field = type.findFieldByName(parts[0]);
        if (field == null) {
            throw new IllegalArgumentException(type.getFullName() + " has no field " + parts[0]);
        }
        return parts.length == 1 ? field : descriptor(field.getMessageType(), parts[1]);
    }

    /** The message with the field at {@code path} cleared and {@code raw} (tag and value) in its place. */
    static byte[] replaced(Message message, String path, byte[] raw) {
        String[] parts = path.split("\\.", 2);
        FieldDescriptor field = message.getDescriptorForType().findFieldByName(parts[0]);
        if (parts.length == 1) {
            return concat(message.toBuilder().clearField(field).build().toByteArray(), raw);
        }
        byte[] inner = replaced((Message) message.getField(field), parts[1], raw);
        return concat(message.toBuilder().clearField(field).build().toByteArray(),
                lengthDelimited(field.getNumber(), inner));
    }

    /** The message followed by an unknown field 15 of bytes, to {@code size} bytes in all. */
    static byte[] padded(Message message, int size) {
        byte[] valid = message.toByteArray();
        int payload = size - valid.length - 1 - CodedOutputStream.computeUInt32SizeNoTag(size);
        byte[] field = lengthDelimited(15, new byte[payload]);
        byte[] all = concat(valid, field);
        // The length prefix of the padding may be a byte shorter than estimated: top it up.
        return all.length >= size ? all : concat(valid, lengthDelimited(15, new byte[payload + size - all.length]));
    }

    static byte[] varint(int number, long value) {
        return encode(out -> {
            out.writeTag(number, WireFormat.WIRETYPE_VARINT);
            out.writeUInt64NoTag(value);
        });
    }

    static byte[] fixed64(int number, long value) {
        return encode(out -> out.writeFixed64(number, value));
    }

    static byte[] fixed32(int number, int value) {
        return encode(out -> out.writeFixed32(number, value));
    }

    static byte[] lengthDelimited(int number, byte[] payload) {
        return encode(out -> out.writeByteArray(number, payload));
    }

    static byte[] elevenByteVarint(int number) {
        byte[] tag = encode(out -> out.writeTag(number, WireFormat.WIRETYPE_VARINT));
        byte[] value = bytes(0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00);
        return concat(tag, value);
    }

    private interface Writer {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] encode(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            writer.write(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    /** Deterministic, so that a failure can be replayed. */
    static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new Random(n).nextBytes(bytes);
        return bytes;
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(out.isEmpty() ? "" : " ").append(String.format("%02x", b & 0xff));
        }
        return out.toString();
    }
}
