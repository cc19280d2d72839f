package dev.tandem.cache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The log follower's DataSource (its pool of one), remembering the connection it handed out last,
 * so that a stopping cache can cut short a statement that waits on a database which stopped
 * answering. A blocked socket read ignores the thread's interrupt; only the connection's socket
 * timeout ({@link CacheConfiguration#FOLLOWER_SOCKET_TIMEOUT}) or an abort ends it.
 */
final class FollowerDataSource extends DelegatingDataSource {

    private static final Logger log = LoggerFactory.getLogger(FollowerDataSource.class);

    private volatile Connection last;

    FollowerDataSource(DataSource pool) {
        super(pool);
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = super.getConnection();
        last = connection;
        return connection;
    }

    /**
     * Aborts the connection handed out last, if it is still in use: its statement fails at once and
     * the pool drops it (the next pass, after a restart, opens another). A connection already given
     * back is a closed handle, whose abort does nothing.
     */
    void abortInUse() {
        Connection connection = last;
        if (connection == null) {
            return;
        }
        try {
            if (!connection.isClosed()) {
                connection.abort(Runnable::run);
            }
        } catch (SQLException e) {
            log.debug("Aborting the log follower's connection", e);
        }
    }

    /** Closes the pool, when it is one that closes. */
    void close() throws Exception {
        if (getTargetDataSource() instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }
}
