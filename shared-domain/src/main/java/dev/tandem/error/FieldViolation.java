package dev.tandem.error;

/**
 * One invalid field, named by its proto field path (snake_case, e.g. {@code group.capacity}),
 * which is what google.rpc.BadRequest carries and what problem+json repeats.
 */
public record FieldViolation(String field, String description) {

    /**
     * The proto field path of a path as Java or protobuf's JSON mapping spells it (lowerCamelCase:
     * {@code ownerId} -> {@code owner_id}); a proto path passes through unchanged. One conversion for
     * every place that names a field a client sent (a command's constraint violations, a JSON body's
     * errors, a FieldMask's paths), so that both wires name the same field alike.
     */
    public static String protoPath(String camelCasePath) {
        StringBuilder out = new StringBuilder(camelCasePath.length() + 4);
        for (char c : camelCasePath.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('_').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * A value a client sent, as a description echoes it: whole up to {@code characters} characters,
     * else its first {@code characters} and "...". Counted in code points: cut at a UTF-16 unit, an
     * emoji there lost its second half, and the error carried a lone surrogate, which UTF-8 cannot
     * encode (Java's encoder writes '?' in its place).
     */
    public static String shortened(String value, int characters) {
        if (value.codePointCount(0, value.length()) <= characters) {
            return value;
        }
        return value.substring(0, value.offsetByCodePoints(0, characters)) + "...";
    }
}
