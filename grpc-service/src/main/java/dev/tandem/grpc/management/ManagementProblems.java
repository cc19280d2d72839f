package dev.tandem.grpc.management;

import dev.tandem.error.DomainException;
import dev.tandem.error.DomainProblems;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The management port (8081) answers a DomainException as rest-service does, as problem+json from
 * the shared {@link DomainProblems}: in practice the write filter's 401/403 on DELETE /actuator/cache.
 */
@RestControllerAdvice
public class ManagementProblems {

    @ExceptionHandler(DomainException.class)
    ResponseEntity<ProblemDetail> domain(DomainException e) {
        ProblemDetail problem = DomainProblems.of(e);
        return ResponseEntity.status(problem.getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
