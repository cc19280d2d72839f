package dev.tandem.grpc.support;

import com.google.protobuf.Timestamp;
import com.google.protobuf.util.Timestamps;
import dev.tandem.error.DomainException;

import java.time.Instant;

/** Conversions at the edge of the wire that every feature's mapping needs. */
public final class ProtoTime {

    private ProtoTime() {
    }

    public static Timestamp timestamp(Instant instant) {
        return Timestamps.checkValid(Timestamp.newBuilder()
                .setSeconds(instant.getEpochSecond())
                .setNanos(instant.getNano()));
    }

    /**
     * The instant a client sent in {@code field}, or null when it sent none (so the domain's own
     * validation reports the missing field). A timestamp outside protobuf's valid range
     * (years 1-9999, nanos 0-999,999,999) is the client's mistake, reported on that field rather
     * than failing inside a conversion as an internal error.
     */
    public static Instant instantOrNull(boolean present, Timestamp timestamp, String field) {
        if (!present) {
            return null;
        }
        if (!Timestamps.isValid(timestamp)) {
            throw DomainException.invalid(field, "is not a valid timestamp (years 0001-9999, nanos 0-999999999)");
        }
        return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
    }

    public static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
