package dev.tandem.config;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.Timestamps;
import dev.tandem.error.DomainException;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The field conversions every feature's protobuf mapping needs ({@code GroupProto},
 * {@code UserProto}) and both wires' reading of protobuf requests: times (and refusing ones out of
 * protobuf's range), absent strings, and refusing fields this build does not know.
 */
public final class ProtoValues {

    private ProtoValues() {
    }

    /** A valid protobuf timestamp (years 1-9999); throws IllegalArgumentException outside that range. */
    public static Timestamp timestamp(Instant instant) {
        return Timestamps.checkValid(Timestamp.newBuilder()
                .setSeconds(instant.getEpochSecond())
                .setNanos(instant.getNano()));
    }

    public static Instant instant(Timestamp timestamp) {
        return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
    }

    /**
     * The instant a client sent in {@code field}, or null when it sent none (so the domain's own
     * validation reports the missing field). A timestamp outside protobuf's valid range is the
     * client's mistake, reported on that field ({@link #checkTimestamps}).
     */
    public static Instant instantOrNull(boolean present, Timestamp timestamp, String field) {
        if (!present) {
            return null;
        }
        checkTimestamp(timestamp, field);
        return instant(timestamp);
    }

    /**
     * Every timestamp set anywhere in a client's request message is within protobuf's valid range
     * (years 0001-9999, nanos 0-999,999,999), or the request is invalid on that field (its path of
     * proto field names). Both wires read a protobuf request's times through here; without it an
     * out-of-range time fails inside a conversion (an Instant, protobuf's JSON printer) as an
     * internal error, which is a 5xx for a client's mistake.
     */
    public static void checkTimestamps(Message request) {
        checkTimestamps(request, "");
    }

    private static void checkTimestamps(Message message, String prefix) {
        for (Map.Entry<Descriptors.FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
            if (field.getKey().getJavaType() != Descriptors.FieldDescriptor.JavaType.MESSAGE) {
                continue;
            }
            String path = prefix + field.getKey().getName();
            List<?> values = field.getKey().isRepeated() ? (List<?>) field.getValue() : List.of(field.getValue());
            for (Object value : values) {
                if (value instanceof Timestamp timestamp) {
                    checkTimestamp(timestamp, path);
                } else if (value instanceof Message nested) {
                    checkTimestamps(nested, path + ".");
                }
            }
        }
    }

    private static void checkTimestamp(Timestamp timestamp, String field) {
        if (!Timestamps.isValid(timestamp)) {
            throw DomainException.invalid(field, "is not a valid timestamp (years 0001-9999, nanos 0-999999999)");
        }
    }

    /** Proto setters reject null; an absent string is sent as the proto default, "". */
    public static String orEmpty(String value) {
        return value == null ? "" : value;
    }

    /**
     * {@code message}, unless it carries fields this build does not know: protobuf parses most byte
     * strings into something, and unknown fields mean the bytes were not written by this format
     * version, so they are refused (IllegalArgumentException) rather than half-read.
     */
    public static <M extends Message> M strict(M message) {
        if (!message.getUnknownFields().asMap().isEmpty()) {
            throw new IllegalArgumentException("unknown fields in " + message.getDescriptorForType().getName());
        }
        return message;
    }
}
