package dev.tandem.error;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The single failure type of the domain. Protocol layers map {@link #code()} through
 * {@link ErrorCode}; nothing else about a failure needs to be known on the wire.
 */
public class DomainException extends RuntimeException {

    private final ErrorCode code;
    private final List<FieldViolation> violations;
    private final String resourceType;
    private final String resourceName;
    private final Duration retryAfter;
    private final Map<String, String> metadata;

    public DomainException(ErrorCode code, String message, List<FieldViolation> violations,
                           String resourceType, String resourceName) {
        this(code, message, violations, resourceType, resourceName, null, Map.of(), null);
    }

    /**
     * With the infrastructure's extras: when the client may retry ({@code retryAfter}: REST
     * Retry-After, gRPC RetryInfo), facts for ErrorInfo.metadata (REST: the {@code metadata}
     * member), and the underlying failure (kept for the log, never sent).
     */
    public DomainException(ErrorCode code, String message, List<FieldViolation> violations,
                           String resourceType, String resourceName, Duration retryAfter,
                           Map<String, String> metadata, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.violations = List.copyOf(violations);
        this.resourceType = resourceType;
        this.resourceName = resourceName;
        this.retryAfter = retryAfter;
        this.metadata = Map.copyOf(metadata);
    }

    public DomainException(ErrorCode code, String message) {
        this(code, message, List.of(), null, null);
    }

    public static DomainException invalid(List<FieldViolation> violations) {
        String summary = violations.size() == 1
                ? violations.getFirst().field() + ": " + violations.getFirst().description()
                : violations.size() + " fields are invalid";
        return new DomainException(ErrorCode.INVALID_ARGUMENT, summary, violations, null, null);
    }

    public static DomainException invalid(String field, String description) {
        return invalid(List.of(new FieldViolation(field, description)));
    }

    public static DomainException notFound(String resourceType, Object id) {
        return new DomainException(ErrorCode.NOT_FOUND, resourceType + " " + id + " not found",
                List.of(), resourceType, String.valueOf(id));
    }

    public static DomainException alreadyExists(String resourceType, String name, String message) {
        return new DomainException(ErrorCode.ALREADY_EXISTS, message, List.of(), resourceType, name);
    }

    public static DomainException failedPrecondition(String message) {
        return new DomainException(ErrorCode.FAILED_PRECONDITION, message);
    }

    public static DomainException aborted(String resourceType, Object id, String message) {
        return new DomainException(ErrorCode.ABORTED, message, List.of(), resourceType, String.valueOf(id));
    }

    public ErrorCode code() {
        return code;
    }

    public List<FieldViolation> violations() {
        return violations;
    }

    /** The kind of resource a NOT_FOUND/ALREADY_EXISTS/ABORTED is about ("group", "user"), or null. */
    public String resourceType() {
        return resourceType;
    }

    public String resourceName() {
        return resourceName;
    }

    /** How long the client should wait before retrying, when the failure is transient. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /**
     * {@code delay} in whole seconds, as REST's Retry-After says it (RFC 9110 §10.2.3 has no finer
     * unit): rounded up, so a client that waits them waits at least the delay, and at least 1.
     */
    public static long wholeSecondsAtLeastOne(Duration delay) {
        long seconds = delay.toSeconds() + (delay.toNanosPart() == 0 ? 0 : 1);
        return Math.max(1, seconds);
    }

    /** Facts about the failure for google.rpc.ErrorInfo.metadata (REST: the problem's {@code metadata}). */
    public Map<String, String> metadata() {
        return metadata;
    }
}
