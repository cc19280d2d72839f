package dev.tandem.rest.error;

import dev.tandem.db.CommitOutcomeUnknownException;
import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.error.DataAccessFailures;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.web.context.request.ServletWebRequest;

import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database being down or a deadline passing is never a 500 on the REST wire: 503 problem+json
 * UNAVAILABLE with Retry-After (seconds of tandem.db.retry-after), or 504 DEADLINE_EXCEEDED. The
 * outage system test and RequestTimeoutRestTest show the same end to end.
 */
class DataAccessFailuresRestTest {

    private final RestErrors errors = new RestErrors(new DataAccessFailures(Duration.ofSeconds(4)));
    private final ServletWebRequest request = new ServletWebRequest(new MockHttpServletRequest("POST", "/api/v1/groups"));

    @Test
    void anUnreachableDatabaseIs503WithRetryAfter() {
        ResponseEntity<Object> response = errors.unexpected(new CannotCreateTransactionException("Could not open JPA EntityManager",
                new SQLTransientConnectionException("HikariPool-1 - Connection is not available")), request);

        assertThat(response.getStatusCode().value()).isEqualTo(503);
        assertThat(response.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("4");
        assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        ProblemDetail problem = (ProblemDetail) response.getBody();
        assertThat(problem.getProperties()).containsEntry("code", "UNAVAILABLE");
        assertThat(problem.getDetail()).doesNotContain("Hikari");
    }

    @Test
    void aCommitWithUnknownOutcomeSaysSo() {
        ResponseEntity<Object> response = errors.unexpected(new TransactionSystemException("Could not commit",
                new CommitOutcomeUnknownException(new SQLRecoverableException("Communications link failure", "08S01"))), request);

        assertThat(response.getStatusCode().value()).isEqualTo(503);
        ProblemDetail problem = (ProblemDetail) response.getBody();
        assertThat(problem.getProperties()).containsEntry("metadata", Map.of(DataAccessFailures.COMMIT_OUTCOME, "unknown"));
    }

    @Test
    void aStatementStoppedByTheDeadlineIs504() {
        ResponseEntity<Object> response = errors.unexpected(new CannotCreateTransactionException("x",
                new DeadlineExceededException("the request's deadline passed")), request);

        assertThat(response.getStatusCode().value()).isEqualTo(504);
        assertThat(response.getHeaders().containsHeader(HttpHeaders.RETRY_AFTER)).isFalse();
        assertThat(((ProblemDetail) response.getBody()).getProperties()).containsEntry("code", "DEADLINE_EXCEEDED");
    }
}
