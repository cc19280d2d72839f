package dev.tandem.rest;

import com.google.protobuf.util.Timestamps;
import dev.tandem.error.DomainException;
import dev.tandem.error.FieldViolation;

import java.text.ParseException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The parts of protobuf's JSON mapping that request bodies need, so that a JSON request means
 * exactly what the same request means over gRPC: an absent field is the proto default (0 here, ""
 * through ProtoValues.orEmpty as the protobuf mappings make it), a Timestamp is an RFC 3339
 * string, a FieldMask is one comma-separated string of paths.
 */
public final class ProtoJson {

    private ProtoJson() {
    }

    public static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    public static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    /**
     * An RFC 3339 timestamp, parsed by protobuf's own Timestamp JSON parser so that both wires accept
     * the same strings; null when absent, so the domain reports the field as missing.
     *
     * <p>That parser reads the date and time with a lenient SimpleDateFormat, which rolls what does
     * not exist over into what does: 2031-01-01T99:00:00Z was 2031-01-05T03:00:00Z, February 30 was
     * March 2. java.time's ISO parser, strict, refuses those first.
     */
    public static Instant timestampOrNull(String value, String field) {
        if (value == null) {
            return null;
        }
        try {
            DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(value);
            com.google.protobuf.Timestamp parsed = Timestamps.parse(value);
            return Instant.ofEpochSecond(parsed.getSeconds(), parsed.getNanos());
        } catch (ParseException | DateTimeParseException | IllegalArgumentException e) {
            throw DomainException.invalid(field, "must be an RFC 3339 timestamp such as 2030-01-31T18:00:00Z");
        }
    }

    /**
     * The paths of a FieldMask in its JSON form ("name,capacity"). Protobuf writes the paths in
     * lowerCamelCase; they are turned back into proto field names (snake_case) here, and snake_case
     * input passes through, so "ownerId" and "owner_id" name the same field.
     */
    public static Set<String> fieldMaskPaths(String value) {
        Set<String> paths = new LinkedHashSet<>();
        if (value == null) {
            return paths;
        }
        for (String path : value.split(",")) {
            String trimmed = path.trim();
            if (!trimmed.isEmpty()) {
                paths.add(FieldViolation.protoPath(trimmed));
            }
        }
        return paths;
    }
}
