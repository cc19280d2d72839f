package dev.tandem.error;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

import java.util.Map;

/**
 * A domain failure as an RFC 9457 problem, the HTTP face of {@link ErrorCode}: status and title
 * from the code's HTTP status (type stays about:blank, so the title is the status phrase, §4.2.1),
 * the message as {@code detail}, and the members both wires share: {@code code} (the gRPC status
 * name), {@code fieldViolations} (google.rpc.BadRequest's), {@code resource}
 * (google.rpc.ResourceInfo's) and {@code metadata} (google.rpc.ErrorInfo's, e.g. an unknown commit
 * outcome). Built here, once, for every HTTP edge that answers a
 * DomainException: rest-service's RestErrors and the gRPC service's management port.
 */
public final class DomainProblems {

    public static final String CODE = "code";
    public static final String FIELD_VIOLATIONS = "fieldViolations";
    public static final String RESOURCE = "resource";
    public static final String METADATA = "metadata";

    private DomainProblems() {
    }

    public static ProblemDetail of(DomainException e) {
        ErrorCode code = e.code();
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.valueOf(code.httpStatus()), e.getMessage());
        problem.setProperty(CODE, code.name());
        if (!e.violations().isEmpty()) {
            problem.setProperty(FIELD_VIOLATIONS, e.violations());
        }
        if (e.resourceType() != null) {
            problem.setProperty(RESOURCE, Map.of("type", e.resourceType(), "name", String.valueOf(e.resourceName())));
        }
        if (!e.metadata().isEmpty()) {
            problem.setProperty(METADATA, e.metadata());
        }
        return problem;
    }
}
