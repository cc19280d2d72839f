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
}
