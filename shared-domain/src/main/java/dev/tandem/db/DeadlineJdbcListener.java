package dev.tandem.db;

import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.deadline.RequestDeadline;
import net.ttddyy.dsproxy.listener.MethodExecutionContext;
import net.ttddyy.dsproxy.listener.MethodExecutionListener;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Set;

/**
 * Sees every JDBC call of the application (datasource-proxy's method listener, see
 * {@link GuardedDataSource}) and holds it to the request's {@link RequestDeadline}:
 * <ul>
 * <li>a statement (and a commit) is registered while it runs, so the deadline's expiry cancels it on
 * time, and aborts its connection if it still runs {@code RequestDeadline.ABORT_AFTER} later; so are
 * the connection's other calls that wait on the database (a transaction's begin and end, a rollback,
 * a session setting), which start whatever the time. No JDBC
 * query timeout is set as well: its unit is whole seconds, so it could only fire after the
 * expiry, and Connector/J would schedule a cancel task of its own for every statement;</li>
 * <li>waiting for a pooled connection is interrupted at the deadline;</li>
 * <li>a statement, a connection or a commit that would start after the deadline does not start;</li>
 * <li>a commit that fails once sent (the connection was lost) is reported as
 * {@link CommitOutcomeUnknownException}: the database may or may not have applied it (and counted in
 * {@link AmbiguousCommits}, for the cache's invalidations);</li>
 * <li>a failed rollback, or a call on a connection that Hikari already closed, is reported as a lost
 * connection (SQL state 08003): nothing of the transaction was committed.</li>
 * </ul>
 * Threads without a bound deadline (start-up, Flyway, health checks, the seed) are left alone.
 */
final class DeadlineJdbcListener implements MethodExecutionListener {

    private static final Set<String> EXECUTE_METHODS = Set.of(
            "execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch", "executeLargeBatch");
    /**
     * Connection calls that wait on the database without being a statement or a commit: Connector/J
     * sends each to the server (SET autocommit, ROLLBACK, SET SESSION ..., SAVEPOINT).
     */
    private static final Set<String> CONNECTION_CALLS = Set.of("setAutoCommit", "rollback", "setReadOnly",
            "setTransactionIsolation", "setCatalog", "setSchema", "setSavepoint", "releaseSavepoint");
    private static final String REGISTERED = DeadlineJdbcListener.class.getName() + ".registered";
    private static final String REGISTERED_CALL = DeadlineJdbcListener.class.getName() + ".registeredCall";
    private static final String CLOSED_BEFORE_COMMIT = DeadlineJdbcListener.class.getName() + ".closedBeforeCommit";

    @Override
    public void beforeMethod(MethodExecutionContext call) {
        Object target = call.getTarget();
        String method = call.getMethod().getName();
        if (target instanceof Connection connection && method.equals("commit") && closed(connection)) {
            // Hikari closed it (after a fatal error): the commit cannot be sent, so it is not ambiguous.
            call.addCustomValue(CLOSED_BEFORE_COMMIT, Boolean.TRUE);
        }
        Optional<RequestDeadline> bound = RequestDeadline.current();
        if (bound.isEmpty()) {
            return;
        }
        RequestDeadline deadline = bound.get();
        if (target instanceof Statement statement && EXECUTE_METHODS.contains(method)) {
            if (!deadline.statementStarting(statement)) {
                throw sneaky(new DeadlineExceededException("the request's deadline passed before the statement started"));
            }
            call.addCustomValue(REGISTERED, deadline);
        } else if (target instanceof DataSource && method.equals("getConnection")) {
            if (!deadline.acquisitionStarting()) {
                throw sneaky(new DeadlineExceededException("the request's deadline passed before a database connection was obtained"));
            }
            call.addCustomValue(REGISTERED, deadline);
        } else if (target instanceof Connection connection && method.equals("commit")) {
            if (!deadline.commitStarting(connection)) {
                // Too late to answer success: not committing lets the transaction roll back.
                throw sneaky(new DeadlineExceededException("the request's deadline passed before the commit"));
            }
            call.addCustomValue(REGISTERED, deadline);
        } else if (target instanceof Connection connection && CONNECTION_CALLS.contains(method)) {
            deadline.callStarting(connection);
            call.addCustomValue(REGISTERED_CALL, deadline);
        }
    }

    @Override
    public void afterMethod(MethodExecutionContext call) {
        Object target = call.getTarget();
        String method = call.getMethod().getName();
        Throwable thrown = call.getThrown();
        RequestDeadline deadline = call.getCustomValue(REGISTERED, RequestDeadline.class);
        RequestDeadline callDeadline = call.getCustomValue(REGISTERED_CALL, RequestDeadline.class);
        if (callDeadline != null && target instanceof Connection connection) {
            callDeadline.callEnded(connection);
        }
        if (deadline != null && target instanceof Statement statement) {
            deadline.statementEnded(statement);
        } else if (deadline != null && target instanceof Connection connection) {
            deadline.commitEnded(connection);
        } else if (deadline != null && target instanceof DataSource) {
            boolean interrupted = deadline.acquisitionEnded();
            if (interrupted && thrown != null) {
                // Replaces Hikari's "interrupted during connection acquisition" with what happened.
                throw sneaky(new DeadlineExceededException(
                        "the request's deadline passed while waiting for a database connection", thrown));
            }
        }
        if (!(thrown instanceof SQLException failure) || thrown instanceof DeadlineExceededException) {
            return;
        }
        if (target instanceof Connection && method.equals("commit")) {
            if (call.getCustomValue(CLOSED_BEFORE_COMMIT, Boolean.class) == null) {
                AmbiguousCommits.record();
                throw sneaky(new CommitOutcomeUnknownException(failure));
            }
            throw sneaky(connectionLost(failure));
        }
        if (!isConnectionFailure(failure) && (method.equals("rollback") || closed(target))) {
            // A connection that Hikari closed after a fatal error says only "Connection is closed",
            // and a failed rollback means the connection is gone: name both for what they are (SQL
            // state 08003), so they are classified as the database being unavailable, not as a bug.
            throw sneaky(connectionLost(failure));
        }
    }

    private static SQLNonTransientConnectionException connectionLost(SQLException failure) {
        return new SQLNonTransientConnectionException("the database connection was lost; the transaction was not "
                + "committed: " + failure.getMessage(), "08003", failure);
    }

    private static boolean isConnectionFailure(SQLException failure) {
        return failure.getSQLState() != null && failure.getSQLState().startsWith("08");
    }

    /** Whether a connection or statement is closed; one that cannot even say so counts as closed. */
    private static boolean closed(Object target) {
        try {
            return switch (target) {
                case Connection connection -> connection.isClosed();
                case Statement statement -> statement.isClosed();
                default -> false;
            };
        } catch (SQLException e) {
            return true;
        }
    }

    /**
     * The listener's methods declare no exceptions, but every JDBC method it guards declares
     * SQLException, so an SQLException thrown here reaches the caller as the JDBC call's own failure
     * (the proxy rethrows it unchanged).
     */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
        throw (E) e;
    }
}
