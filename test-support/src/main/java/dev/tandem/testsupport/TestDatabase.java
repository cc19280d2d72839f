package dev.tandem.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The test's own JDBC view of the database the service processes use: to check what a write left
 * behind, and to hold row locks that keep a request in flight. Plain JDBC, its own connections.
 */
public final class TestDatabase {

    private static final String USER = "tandem";
    private static final String PASSWORD = "tandem";

    private final String url;

    public TestDatabase(int port, String name) {
        this.url = "jdbc:mysql://127.0.0.1:" + port + "/" + name
                + "?connectionTimeZone=UTC&useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=5000";
    }

    /** The database of the services that {@link ServiceProcess} starts, on {@code servers}. */
    public static TestDatabase of(LocalServers servers) {
        return new TestDatabase(servers.mariadbPort, System.getProperty("tandem.test.db-name", "tandem_test_system"));
    }

    public Connection connect() {
        try {
            return DriverManager.getConnection(url, USER, PASSWORD);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + url, e);
        }
    }

    /** The first column of every row of {@code sql}, as strings. */
    public List<String> column(String sql, Object... parameters) {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            List<String> values = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    values.add(rows.getString(1));
                }
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** The one value of {@code sql} (first column of the one row), or null when there is no row. */
    public String value(String sql, Object... parameters) {
        List<String> values = column(sql, parameters);
        if (values.size() > 1) {
            throw new IllegalStateException(sql + " returned " + values.size() + " rows");
        }
        return values.isEmpty() ? null : values.getFirst();
    }

    /**
     * A transaction that holds the row lock of group {@code groupId} ({@code SELECT ... FOR
     * UPDATE}) until it is closed: a write of that group waits on it, and so stays in flight.
     */
    public RowLock lockGroup(long groupId) {
        try {
            return RowLock.studyGroup(url, USER, PASSWORD, groupId);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot lock group " + groupId, e);
        }
    }

    /**
     * Whether another connection is running a statement that locks group rows (the service's
     * {@code select ... for update}), which, while the test holds the lock, means it waits on it.
     * The tandem user sees its own connections in the process list without extra privileges, those
     * of the other modules' tests on the shared server too: only this database's count.
     */
    public boolean someoneWaitsForGroupLock() {
        return groupLockWaiters() > 0;
    }

    /** How many other connections run a statement that locks group rows now (as above). */
    public int groupLockWaiters() {
        return Integer.parseInt(value("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()"
                + " AND DB = DATABASE() AND COMMAND = 'Query' AND LOWER(INFO) LIKE '%from study_groups%for update%'"));
    }
}
