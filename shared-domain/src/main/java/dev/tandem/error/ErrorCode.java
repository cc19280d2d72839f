package dev.tandem.error;

import com.google.rpc.Code;

/**
 * The one table that maps a domain failure to both wires: a gRPC status code (as google.rpc.Code,
 * whose numbers are grpc-java's Status.Code values) and an HTTP status for problem+json.
 * Conflicts are 409 on REST whichever gRPC flavour they are, so a REST client needs one branch.
 */
public enum ErrorCode {
    INVALID_ARGUMENT(Code.INVALID_ARGUMENT, 400, "Invalid argument"),
    NOT_FOUND(Code.NOT_FOUND, 404, "Not found"),
    ALREADY_EXISTS(Code.ALREADY_EXISTS, 409, "Already exists"),
    FAILED_PRECONDITION(Code.FAILED_PRECONDITION, 409, "Failed precondition"),
    ABORTED(Code.ABORTED, 409, "Concurrent modification"),
    UNAUTHENTICATED(Code.UNAUTHENTICATED, 401, "Unauthenticated"),
    PERMISSION_DENIED(Code.PERMISSION_DENIED, 403, "Permission denied"),
    RESOURCE_EXHAUSTED(Code.RESOURCE_EXHAUSTED, 429, "Resource exhausted"),
    DEADLINE_EXCEEDED(Code.DEADLINE_EXCEEDED, 504, "Deadline exceeded"),
    UNAVAILABLE(Code.UNAVAILABLE, 503, "Unavailable"),
    /** What this deployment does not offer (watching without the invalidation log). */
    UNIMPLEMENTED(Code.UNIMPLEMENTED, 501, "Not implemented"),
    INTERNAL(Code.INTERNAL, 500, "Internal error");

    private final Code rpcCode;
    private final int httpStatus;
    private final String title;

    ErrorCode(Code rpcCode, int httpStatus, String title) {
        this.rpcCode = rpcCode;
        this.httpStatus = httpStatus;
        this.title = title;
    }

    /** The gRPC status code; {@code io.grpc.Status.fromCodeValue(rpcCode().getNumber())}. */
    public Code rpcCode() {
        return rpcCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** Short, fixed human title: the gRPC status message when a failure carries none. */
    public String title() {
        return title;
    }
}
