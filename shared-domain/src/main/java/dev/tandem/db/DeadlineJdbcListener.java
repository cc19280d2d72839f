package dev.tandem.db;

import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.deadline.RequestDeadline;
import net.ttddyy.dsproxy.listener.MethodExecutionContext;
import net.ttddyy.dsproxy.listener.MethodExecutionListener;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Set;

/**
 * Sees every JDBC call of the application (datasource-proxy's method listener, see
 * {@link GuardedDataSource}) and holds it to the request's {@link RequestDeadline}:
 * <ul>
 * <li>a statement gets the remaining time as its query timeout (whole seconds, rounded up: JDBC's
 * unit; the deadline's own expiry cancels it on time) and is registered, so the expiry cancels it;
 * </li>
 * <li>waiting for a pooled connection is interrupted at the deadline;</li>
 * <li>a statement, a connection or a commit that would start after the deadline does not start;</li>
 * <li>a commit that fails once sent (the connection was lost) is reported as
 * {@link CommitOutcomeUnknownException}: the database may or may not have applied it.</li>
 * </ul>
 * Threads without a bound deadline (start-up, Flyway, health checks, the seed) are left alone.
 */
final class DeadlineJdbcListener implements MethodExecutionListener {

    private static final Set<String> EXECUTE_METHODS = Set.of(
            "execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch", "executeLargeBatch");
    private static final String REGISTERED = DeadlineJdbcListener.class.getName() + ".registered";

    @Override
    public void beforeMethod(MethodExecutionContext call) {
        Object target = call.getTarget();
        String method = call.getMethod().getName();
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
            try {
                long millis = deadline.remaining().toMillis();
                statement.setQueryTimeout((int) Math.max(1, (millis + 999) / 1000));
            } catch (SQLException e) {
                deadline.statementEnded(statement);
                throw sneaky(e);
            }
        } else if (target instanceof DataSource && method.equals("getConnection")) {
            if (!deadline.acquisitionStarting()) {
                throw sneaky(new DeadlineExceededException("the request's deadline passed before a database connection was obtained"));
            }
            call.addCustomValue(REGISTERED, deadline);
        } else if (target instanceof Connection && method.equals("commit") && deadline.expired()) {
            // Too late to answer success: not committing lets the transaction roll back.
            throw sneaky(new DeadlineExceededException("the request's deadline passed before the commit"));
        }
    }

    @Override
    public void afterMethod(MethodExecutionContext call) {
        Object target = call.getTarget();
        String method = call.getMethod().getName();
        RequestDeadline deadline = call.getCustomValue(REGISTERED, RequestDeadline.class);
        if (deadline != null && target instanceof Statement statement) {
            deadline.statementEnded(statement);
            try {
                // Statements may be pooled by the driver: the next user sets its own timeout or none.
                statement.setQueryTimeout(0);
            } catch (SQLException ignored) {
                // The statement is broken anyway; whoever uses it next finds out.
            }
        } else if (deadline != null && target instanceof DataSource) {
            boolean interrupted = deadline.acquisitionEnded();
            if (interrupted && call.getThrown() != null) {
                // Replaces Hikari's "interrupted during connection acquisition" with what happened.
                throw sneaky(new DeadlineExceededException(
                        "the request's deadline passed while waiting for a database connection", call.getThrown()));
            }
        } else if (target instanceof Connection && method.equals("commit") && call.getThrown() != null
                && !(call.getThrown() instanceof DeadlineExceededException)
                && !"08003".equals(sqlState(call.getThrown()))) {
            // 08003: the connection was closed before the commit was sent, so nothing was committed.
            throw sneaky(new CommitOutcomeUnknownException(call.getThrown()));
        }
    }

    private static String sqlState(Throwable thrown) {
        return thrown instanceof SQLException sql ? sql.getSQLState() : null;
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
