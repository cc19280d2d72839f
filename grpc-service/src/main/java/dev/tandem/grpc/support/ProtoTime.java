package dev.tandem.grpc.support;

import com.google.protobuf.Timestamp;
import com.google.protobuf.util.Timestamps;
import dev.tandem.error.DomainException;

import java.time.Instant;

/**
 * Reading times from requests. (Answers are mapped by the domain's own {@code GroupProto} and
 * {@code UserProto}, which the cache's L2 shares.)
 */
public final class ProtoTime {

    private ProtoTime() {
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
}
