package dev.tandem.rest.error;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tandem.error.FieldViolation;
import dev.tandem.rest.StrictJson;
import org.springframework.http.converter.HttpMessageNotReadableException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says, in the client's terms, what is wrong with a request body that could not be read (JSON, or
 * protobuf bytes that do not parse): which
 * field (as a proto field path, like the domain's violations) and what was expected there. Jackson's
 * own messages are not passed on: they name Java classes, which are none of the client's business.
 */
final class JsonProblems {

    /** What a client gets told: a one-line detail and, when a field is to blame, that field. */
    record Described(String detail, List<FieldViolation> violations) {
    }

    /** The "from `StreamReadConstraints.getMaxNestingDepth()`)" ending of a constraint's message. */
    private static final Pattern LIMIT_SOURCE = Pattern.compile(", from `[^`]*`\\)");
    /** How Jackson's parser reports a repeated name (StreamReadFeature.STRICT_DUPLICATE_DETECTION). */
    private static final Pattern DUPLICATE = Pattern.compile("Duplicate Object property \"(.*)\"", Pattern.DOTALL);

    private JsonProblems() {
    }

    static Described describe(HttpMessageNotReadableException e) {
        Throwable cause = e.getCause();
        if (cause instanceof InvalidProtocolBufferException) {
            // ProtobufRepresentation's message names the request message and what is wrong with the bytes.
            return new Described(e.getMessage(), List.of());
        }
        StreamConstraintsException limit = causeOfType(cause, StreamConstraintsException.class);
        if (limit != null) {
            // Jackson names the limit and the value, e.g. "Document nesting depth (33) exceeds the
            // maximum allowed (32, from `StreamReadConstraints.getMaxNestingDepth()`)"; the Java
            // method it was configured through is dropped.
            String what = LIMIT_SOURCE.matcher(String.valueOf(limit.getOriginalMessage())).replaceAll(")");
            String detail = "the request body exceeds a limit of the JSON parser: "
                    + (what.isEmpty() ? "" : Character.toLowerCase(what.charAt(0)) + what.substring(1));
            // Where it was: databind may have wrapped the parser's exception with the field's path.
            String field = cause instanceof JacksonException wrapper ? path(wrapper, false) : "";
            return field.isEmpty() ? new Described(detail, List.of())
                    : new Described(detail, List.of(new FieldViolation(field, what)));
        }
        if (cause instanceof UnrecognizedPropertyException unknown) {
            // Named as sent: an unknown field has no proto name to translate it to.
            String field = path(unknown, true);
            return withField(field, "is not a field of this request");
        }
        if (cause instanceof InputCoercionException outOfRange) {
            return withField(path(outOfRange, false), "is out of range for " + typeName(outOfRange.getTargetType()));
        }
        if (cause instanceof InvalidFormatException bad && bad.getTargetType() == String.class) {
            // Two failures reach here aimed at a String: a string that is not Unicode text (StrictJson's
            // check, the only string Jackson finds "weird"), and a number or boolean refused as one
            // (StrictJson's coercion rules), whose value is that number or boolean.
            return withField(path(bad, false), bad.getValue() instanceof String
                    ? StrictJson.UnicodeStringDeserializer.NOT_UNICODE : "must be a string");
        }
        if (cause instanceof MismatchedInputException mismatch && mismatch.getPath().isEmpty()
                && String.valueOf(mismatch.getOriginalMessage()).startsWith("No content to map")) {
            // Whitespace only: as good as no body at all.
            return new Described("a JSON request body is required", List.of());
        }
        if (cause instanceof MismatchedInputException mismatch) {
            String field = path(mismatch, false);
            String expected = "must be " + typeName(mismatch.getTargetType());
            if (field.isEmpty()) {
                return new Described("the request body " + expected, List.of());
            }
            return withField(field, expected);
        }
        if (cause instanceof StreamReadException malformed) {
            Matcher duplicate = DUPLICATE.matcher(String.valueOf(malformed.getOriginalMessage()));
            if (duplicate.matches()) {
                // By its proto name, below the path of the object holding it.
                String parent = path(malformed, false);
                String name = FieldViolation.protoPath(duplicate.group(1));
                return withField(parent.isEmpty() ? name : parent + "." + name, "appears more than once");
            }
            return new Described("the request body is not valid JSON" + where(malformed.getLocation()), List.of());
        }
        if (cause instanceof JacksonException other) {
            String field = path(other, false);
            return field.isEmpty()
                    ? new Described("the request body could not be read as JSON", List.of())
                    : withField(field, "has an invalid value");
        }
        // Spring raises this without a cause only when there is no body at all.
        return new Described("a JSON request body is required", List.of());
    }

    private static <T extends Throwable> T causeOfType(Throwable e, Class<T> type) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }

    private static Described withField(String field, String description) {
        return new Described(field + ": " + description, List.of(new FieldViolation(field, description)));
    }

    /**
     * The JSON path as a proto field path: known fields by their proto names (ownerId -> owner_id,
     * group.capacity), dot-separated, array positions as [i].
     */
    private static String path(JacksonException e, boolean lastAsSent) {
        StringBuilder out = new StringBuilder();
        List<JacksonException.Reference> references = e.getPath();
        for (int i = 0; i < references.size(); i++) {
            JacksonException.Reference reference = references.get(i);
            String property = reference.getPropertyName();
            if (property != null) {
                boolean asSent = lastAsSent && i == references.size() - 1;
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(asSent ? property : FieldViolation.protoPath(property));
            } else if (reference.getIndex() >= 0) {
                out.append('[').append(reference.getIndex()).append(']');
            }
        }
        return out.toString();
    }

    private static String typeName(Class<?> type) {
        if (type == null) {
            return "a value of another type";
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class
                || type == Short.class || type == short.class) {
            return type == Long.class || type == long.class ? "a 64-bit integer" : "a 32-bit integer";
        }
        if (type == Double.class || type == double.class || type == Float.class || type == float.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class || CharSequence.class.isAssignableFrom(type)) {
            return "a string";
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            return "an array";
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord() || !type.isPrimitive()) {
            return "an object";
        }
        return "a value of another type";
    }

    private static String where(TokenStreamLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }
}
