package dev.tandem.config;

import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.Timestamps;

import java.time.Instant;

/**
 * The field conversions every feature's protobuf mapping needs ({@code GroupProto},
 * {@code UserProto}): times, absent strings, and refusing fields this build does not know.
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
