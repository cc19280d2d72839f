package dev.tandem.error;

import com.zaxxer.hikari.pool.HikariPool;
import dev.tandem.db.CommitOutcomeUnknownException;
import dev.tandem.deadline.DeadlineExceededException;
import org.hibernate.exception.JDBCConnectionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.orm.jpa.JpaSystemException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The classification on its own, with the exception chains the stack really produces (Hikari,
 * Connector/J, Hibernate and Spring wrap each other's failures); the service tests and the outage
 * system test show them arising for real.
 */
class DataAccessFailuresTest {

    private final DataAccessFailures failures = new DataAccessFailures(Duration.ofSeconds(7));

    static Stream<Arguments> unreachable() {
        SQLTransientConnectionException poolTimeout = new SQLTransientConnectionException(
                "HikariPool-1 - Connection is not available, request timed out after 3000ms", "08S01",
                new SQLRecoverableException("Communications link failure", "08S01", new ConnectException("Connection refused")));
        return Stream.of(
                Arguments.of(new CannotCreateTransactionException("Could not open JPA EntityManager for transaction", poolTimeout)),
                Arguments.of(new DataAccessResourceFailureException("Unable to acquire JDBC Connection", poolTimeout)),
                Arguments.of(new JpaSystemException(new JDBCConnectionException("could not execute statement",
                        new SQLRecoverableException("Communications link failure", "08S01")))),
                Arguments.of(new TransactionSystemException("Could not roll back JPA transaction",
                        new SQLException("No operations allowed after connection closed.", "08003"))),
                Arguments.of(new HikariPool.PoolInitializationException(poolTimeout)));
    }

    @ParameterizedTest
    @MethodSource
    void unreachable(Exception failure) {
        DomainException classified = failures.classify(failure).orElseThrow();

        assertThat(classified.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(classified.retryAfter()).contains(Duration.ofSeconds(7));
        assertThat(classified.metadata()).isEmpty();
        assertThat(classified.getMessage()).doesNotContain("Hikari", "Communications");
    }

    static Stream<Arguments> deadline() {
        return Stream.of(
                Arguments.of(new CannotCreateTransactionException("x", new DeadlineExceededException("refused"))),
                Arguments.of(new QueryTimeoutException("x", new SQLException("Query execution was interrupted", "70100", 1317))),
                Arguments.of(new JpaSystemException(new RuntimeException(new SQLException("Statement cancelled due to client request", "HYT00")))));
    }

    @ParameterizedTest
    @MethodSource
    void deadline(Exception failure) {
        DomainException classified = failures.classify(failure).orElseThrow();

        assertThat(classified.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
        assertThat(classified.retryAfter()).isEmpty();
    }

    @Test
    void aCommitThatFailedOnceSentHasAnUnknownOutcome() {
        TransactionSystemException commitFailed = new TransactionSystemException("Could not commit JPA transaction",
                new CommitOutcomeUnknownException(new SQLRecoverableException("Communications link failure", "08S01")));

        DomainException classified = failures.classify(commitFailed).orElseThrow();

        assertThat(classified.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(classified.metadata()).containsEntry(DataAccessFailures.COMMIT_OUTCOME, "unknown");
        assertThat(classified.retryAfter()).contains(Duration.ofSeconds(7));
    }

    static Stream<Arguments> lostAConcurrencyConflict() {
        return Stream.of(
                Arguments.of(new CannotAcquireLockException("could not execute statement [insert into users ...]",
                        new SQLException("Deadlock found when trying to get lock; try restarting transaction", "40001", 1213))),
                Arguments.of(new PessimisticLockingFailureException("could not execute statement",
                        new SQLException("Lock wait timeout exceeded; try restarting transaction", "HY000", 1205))),
                Arguments.of(new JpaSystemException(new RuntimeException(
                        new SQLException("Deadlock found when trying to get lock; try restarting transaction", "40001", 1213)))));
    }

    @ParameterizedTest
    @MethodSource
    void lostAConcurrencyConflict(Exception failure) {
        DomainException classified = failures.classify(failure).orElseThrow();

        assertThat(classified.code()).isEqualTo(ErrorCode.ABORTED);
        assertThat(classified.getMessage()).contains("nothing was changed").doesNotContain("Deadlock", "Lock wait");
        assertThat(classified.retryAfter()).isEmpty();
    }

    @Test
    void otherFailuresAreNotDataAccessFailures() {
        assertThat(failures.classify(new IllegalStateException("a bug"))).isEmpty();
        assertThat(failures.classify(new DataIntegrityViolationException("duplicate key",
                new SQLException("Duplicate entry", "23000", 1062)))).isEmpty();
    }
}
