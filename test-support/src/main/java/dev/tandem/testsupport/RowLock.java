package dev.tandem.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A row of {@code study_groups} locked by a connection of the test's own (not the service's pool):
 * {@code SELECT ... FOR UPDATE} in a transaction that stays open until {@link #close()} rolls it
 * back. A write of the service that needs the row waits for it (up to innodb_lock_wait_timeout,
 * 50 s), which is what a deadline must cut short. The same connection watches
 * information_schema.processlist for the service's statements on the table.
 */
public final class RowLock implements AutoCloseable {

    private final Connection connection;

    private RowLock(Connection connection) {
        this.connection = connection;
    }

    public static RowLock studyGroup(String url, String user, String password, long groupId) throws SQLException {
        Connection connection = DriverManager.getConnection(url, user, password);
        try {
            connection.setAutoCommit(false);
            try (PreparedStatement lock = connection.prepareStatement("SELECT id FROM study_groups WHERE id = ? FOR UPDATE")) {
                lock.setLong(1, groupId);
                try (ResultSet row = lock.executeQuery()) {
                    if (!row.next()) {
                        throw new IllegalArgumentException("no study group " + groupId);
                    }
                }
            }
            return new RowLock(connection);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** Statements of other connections of this database that are running on study_groups now. */
    public int statementsOnStudyGroups() {
        return statementsOnStudyGroups(false);
    }

    /**
     * Waits (bounded) until some other connection runs a locking read of study_groups (SELECT ... FOR
     * UPDATE, how every group write begins), which the test's row lock holds up; whether one did. A
     * plain read of the table (a cache refresh) does not count: it does not wait for the lock.
     */
    public boolean awaitLockingReadOfStudyGroups(Duration bound) {
        return Await.within(bound, () -> statementsOnStudyGroups(true) > 0);
    }

    /** Waits (bounded) until some other connection runs a statement on study_groups; whether one did. */
    public boolean awaitStatementOnStudyGroups(Duration bound) {
        return Await.within(bound, () -> statementsOnStudyGroups(false) > 0);
    }

    /** Waits (bounded) until no other connection runs a statement on study_groups; whether none does. */
    public boolean awaitNoStatementOnStudyGroups(Duration bound) {
        return Await.within(bound, () -> statementsOnStudyGroups(false) == 0);
    }

    private int statementsOnStudyGroups(boolean lockingReadsOnly) {
        try (PreparedStatement query = connection.prepareStatement("""
                SELECT COUNT(*) FROM information_schema.processlist
                WHERE id <> CONNECTION_ID() AND db = DATABASE() AND command = 'Query'
                  AND info LIKE '%study_groups%'""" + (lockingReadsOnly ? " AND info LIKE '%for update%'" : ""));
             ResultSet count = query.executeQuery()) {
            count.next();
            return count.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the process list", e);
        }
    }

    /**
     * Releases the lock (rollback: the test changed nothing) and closes the connection; again, does
     * nothing, so that a test may release it midway and still close it in a finally block.
     */
    @Override
    public void close() {
        try {
            if (connection.isClosed()) {
                return;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot tell whether the row lock is released", e);
        }
        try (connection) {
            connection.rollback();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot release the row lock", e);
        }
    }
}
