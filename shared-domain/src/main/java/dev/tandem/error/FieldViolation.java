package dev.tandem.error;

/**
 * One invalid field, named by its proto field path (snake_case, e.g. {@code group.capacity}),
 * which is what google.rpc.BadRequest carries and what problem+json repeats.
 */
public record FieldViolation(String field, String description) {
}
