package dev.tandem.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The only replication-specific SQL of the project: where the primary's binary log is, and
 * waiting (bounded) until a replica has applied it. Chosen by {@code tandem.db.product}.
 * <ul>
 * <li>MariaDB: {@code @@gtid_binlog_pos} (the last GTID per domain written to the primary's binary
 * log) and {@code MASTER_GTID_WAIT(pos, seconds)} (0 once the replica's {@code gtid_slave_pos} has
 * reached it, -1 on timeout). The primary needs {@code log_bin}; the replica replicates with
 * {@code MASTER_USE_GTID=slave_pos}.</li>
 * <li>MySQL 8: {@code @@GLOBAL.gtid_executed} and {@code WAIT_FOR_EXECUTED_GTID_SET(set, seconds)}
 * (0 when applied, 1 on timeout). Both servers need {@code gtid_mode=ON} and
 * {@code enforce_gtid_consistency=ON}.</li>
 * </ul>
 */
enum GtidDialect {

    MARIADB("SELECT @@GLOBAL.log_bin = 1, @@GLOBAL.gtid_binlog_pos",
            "SELECT MASTER_GTID_WAIT(?, ?)", "the primary has no binary log (start it with --log-bin)"),
    MYSQL("SELECT @@GLOBAL.gtid_mode = 'ON', @@GLOBAL.gtid_executed",
            "SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?)", "the primary does not use GTIDs (gtid_mode=ON)");

    private final String positionSql;
    private final String waitSql;
    private final String unusable;

    GtidDialect(String positionSql, String waitSql, String unusable) {
        this.positionSql = positionSql;
        this.waitSql = waitSql;
        this.unusable = unusable;
    }

    /** MySQL for a product named MySQL, else MariaDB (what runs here). */
    static GtidDialect forProduct(String product) {
        return "mysql".equalsIgnoreCase(product == null ? "" : product.trim()) ? MYSQL : MARIADB;
    }

    /**
     * Every transaction the primary has committed so far, as a GTID position; "" before the first.
     * Without GTIDs in the binary log, reads could not be fenced, so that is an error, not a
     * silent fallback to unfenced replica reads.
     */
    String primaryPosition(Connection primary) throws SQLException {
        try (Statement statement = primary.createStatement();
             ResultSet rs = statement.executeQuery(positionSql)) {
            rs.next();
            if (!rs.getBoolean(1)) {
                throw new IllegalStateException("tandem.db.replica is set but " + unusable);
            }
            String position = rs.getString(2);
            return position == null ? "" : position.trim();
        }
    }

    /** Whether the replica has applied {@code position}, waiting at most {@code maxWait} for it. */
    boolean awaitApplied(Connection replica, String position, Duration maxWait) throws SQLException {
        if (position.isEmpty()) {
            return true;
        }
        try (PreparedStatement statement = replica.prepareStatement(waitSql)) {
            statement.setString(1, position);
            statement.setDouble(2, timeoutSeconds(maxWait));
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() && rs.getInt(1) == 0 && !rs.wasNull();
            }
        }
    }

    /**
     * The wait functions' timeout argument for {@code maxWait}: seconds, a fraction allowed by both,
     * never 0 for a positive wait. Whole milliseconds made a wait under 1 ms 0, which MariaDB takes
     * as "do not wait" but MySQL's WAIT_FOR_EXECUTED_GTID_SET as "wait without limit".
     */
    static double timeoutSeconds(Duration maxWait) {
        return maxWait.toNanos() / 1e9;
    }
}
