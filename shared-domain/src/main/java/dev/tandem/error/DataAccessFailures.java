package dev.tandem.error;

import dev.tandem.db.CommitOutcomeUnknownException;
import dev.tandem.db.DatabaseProperties;
import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.deadline.RequestDeadline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionException;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one classification of data-access failures, for both wires: what a failure of the database
 * (or of the request's deadline) means to a client. Anything it does not recognise stays an
 * unexpected failure (INTERNAL); everything it does is never a 500:
 * <ul>
 * <li>the request's deadline passed or it was cancelled, so its statement was refused or cancelled
 * (KILL QUERY): DEADLINE_EXCEEDED (504);</li>
 * <li>the database cannot be reached or the connection broke (Hikari's connection timeout,
 * Connector/J's communications failure, SQL state class 08, Spring's resource failures, a
 * transaction that could not begin): UNAVAILABLE (503) with a retry delay,
 * {@code tandem.db.retry-after};</li>
 * <li>the connection broke during the commit: UNAVAILABLE with {@code commitOutcome=unknown} in the
 * metadata — the write may have been applied, so the client must read before retrying it;</li>
 * <li>the write lost a lock conflict with a concurrent one: InnoDB chose it as a deadlock's victim
 * (1213, SQL state 40001) or its lock wait timed out (1205), and its transaction was rolled back:
 * ABORTED (409), as for a stale version — the client retries, and sees what the other write did
 * (two creates of one e-mail whose first holder rolled back deadlock this way, by InnoDB's design).</li>
 * </ul>
 */
@Component
public class DataAccessFailures {

    /** ErrorInfo.metadata key (REST: in the problem's {@code metadata}) of an ambiguous commit. */
    public static final String COMMIT_OUTCOME = "commitOutcome";

    private static final Logger log = LoggerFactory.getLogger(DataAccessFailures.class);
    private static final Set<String> STATEMENT_CANCELLED_STATES = Set.of("70100", "HYT00", "HYT01");
    /** MySQL/MariaDB's ER_LOCK_DEADLOCK and ER_LOCK_WAIT_TIMEOUT. */
    private static final Set<Integer> LOCK_CONFLICT_ERRORS = Set.of(1213, 1205);

    private final Duration retryAfter;

    @Autowired
    public DataAccessFailures(DatabaseProperties db) {
        this(db.retryAfter());
    }

    public DataAccessFailures(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    /** With the default retry delay; for code that has no Spring context (unit tests). */
    public DataAccessFailures() {
        this(Duration.ofSeconds(5));
    }

    public Duration retryAfter() {
        return retryAfter;
    }

    /** The domain failure that {@code failure} stands for, or empty when it is not a data-access failure. */
    public Optional<DomainException> classify(Throwable failure) {
        List<Throwable> chain = causes(failure);
        if (chain.stream().anyMatch(e -> e instanceof CommitOutcomeUnknownException)) {
            log.warn("The database connection failed during a commit; its outcome is unknown: {}", rootMessage(chain));
            return Optional.of(new DomainException(ErrorCode.UNAVAILABLE,
                    "the database connection failed while committing; the write may or may not have been applied: "
                            + "read it before retrying", List.of(), null, null, retryAfter,
                    Map.of(COMMIT_OUTCOME, "unknown"), failure));
        }
        if (chain.stream().anyMatch(DataAccessFailures::isDeadline) || deadlinePassedDuringDataAccess(chain)) {
            log.debug("Request cut short by its deadline", failure);
            return Optional.of(new DomainException(ErrorCode.DEADLINE_EXCEEDED,
                    "the request's deadline passed before the database answered; nothing was changed",
                    List.of(), null, null, null, Map.of(), failure));
        }
        if (chain.stream().anyMatch(DataAccessFailures::isUnreachable)) {
            log.warn("Database unavailable: {}", rootMessage(chain));
            return Optional.of(new DomainException(ErrorCode.UNAVAILABLE,
                    "the database is unavailable; nothing was changed; retry after " + retryAfter.toSeconds() + " s",
                    List.of(), null, null, retryAfter, Map.of(), failure));
        }
        if (chain.stream().anyMatch(DataAccessFailures::isLostLockConflict)) {
            log.info("A write lost a lock conflict with a concurrent one and was rolled back: {}", rootMessage(chain));
            return Optional.of(new DomainException(ErrorCode.ABORTED,
                    "the write conflicted with a concurrent write of the same data and was rolled back; "
                            + "nothing was changed: retry it", List.of(), null, null, null, Map.of(), failure));
        }
        return Optional.empty();
    }

    private static boolean isDeadline(Throwable e) {
        return e instanceof DeadlineExceededException
                || e instanceof SQLTimeoutException
                || e instanceof QueryTimeoutException
                || e instanceof jakarta.persistence.QueryTimeoutException
                // Connector/J (a runtime dependency) reports a KILL QUERY it sent as
                // MySQLStatementCancelledException, without SQL state; the server's ER_QUERY_INTERRUPTED is 70100.
                || e.getClass().getSimpleName().equals("MySQLStatementCancelledException")
                || e instanceof SQLException sql && sql.getSQLState() != null
                && STATEMENT_CANCELLED_STATES.contains(sql.getSQLState());
    }

    /** A statement that failed in a request whose deadline had passed was cut short by it, whatever the wrapping. */
    private static boolean deadlinePassedDuringDataAccess(List<Throwable> chain) {
        return RequestDeadline.current().map(deadline -> cutShortBy(deadline, chain)).orElse(false);
    }

    /**
     * Whether {@code failure}, thrown in a request under {@code deadline}, was cut short by it: a
     * data-access failure once the deadline has passed (a statement the deadline stopped, or a frozen
     * database's connection aborted after it), whatever the wrapping. {@link #classify} asks the
     * deadline bound to the thread; a wire that classifies after the binding is gone asks here first.
     */
    public static boolean cutShortBy(RequestDeadline deadline, Throwable failure) {
        return cutShortBy(deadline, causes(failure));
    }

    private static boolean cutShortBy(RequestDeadline deadline, List<Throwable> chain) {
        return deadline.expired()
                && chain.stream().anyMatch(e -> e instanceof SQLException || e instanceof DataAccessException
                || e instanceof TransactionException || e instanceof jakarta.persistence.PersistenceException);
    }

    private static boolean isUnreachable(Throwable e) {
        return e instanceof SQLTransientConnectionException
                || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException
                || e instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")
                || e instanceof CannotCreateTransactionException
                || e instanceof DataAccessResourceFailureException
                || e instanceof TransientDataAccessResourceException
                || e instanceof RecoverableDataAccessException
                || e instanceof org.hibernate.exception.JDBCConnectionException;
    }

    private static boolean isLostLockConflict(Throwable e) {
        return e instanceof PessimisticLockingFailureException
                || e instanceof jakarta.persistence.PessimisticLockException
                || e instanceof jakarta.persistence.LockTimeoutException
                || e instanceof org.hibernate.exception.LockAcquisitionException
                || e instanceof SQLTransactionRollbackException
                || e instanceof SQLException sql && (LOCK_CONFLICT_ERRORS.contains(sql.getErrorCode())
                || "40001".equals(sql.getSQLState()));
    }

    private static List<Throwable> causes(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> chain = new ArrayList<>();
        for (Throwable e = failure; e != null && seen.add(e); e = e.getCause()) {
            chain.add(e);
            if (e instanceof SQLException sql && sql.getNextException() != null && seen.add(sql.getNextException())) {
                chain.add(sql.getNextException());
            }
        }
        return chain;
    }

    private static String rootMessage(List<Throwable> chain) {
        Throwable root = chain.getLast();
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
