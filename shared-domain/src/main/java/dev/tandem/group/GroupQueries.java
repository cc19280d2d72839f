package dev.tandem.group;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/**
 * The read side: SQL that builds the read models in as few round trips as the model allows.
 * Kept in plain SQL (not JPQL) because these are reporting queries over several tables, and the
 * search row is, as in the caching study, one query joining groups, members and ratings.
 *
 * <p>Read-only transactions live here rather than on the service's read methods, so that they are
 * opened only when the cache misses (a group's row and its sessions are then read from one
 * snapshot, as before).
 */
@Repository
@Transactional(readOnly = true)
public class GroupQueries {

    /** How many upcoming sessions a {@link GroupView} carries. */
    static final int NEXT_SESSIONS = 3;

    private static final String GROUP = """
            SELECT g.id, g.name, g.subject, g.description, g.capacity, g.owner_id, u.name AS owner_name,
                   g.version, g.created_at,
                   (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id) AS member_count,
                   r.rating_count, r.average_rating
              FROM study_groups g
              JOIN users u ON u.id = g.owner_id
              CROSS JOIN (SELECT COUNT(*) AS rating_count, ROUND(AVG(stars), 2) AS average_rating
                            FROM ratings WHERE group_id = :id) r
             WHERE g.id = :id
            """;

    private static final String NEXT_SESSIONS_SQL = """
            SELECT id, group_id, topic, starts_at, duration_minutes, location
              FROM study_sessions
             WHERE group_id = :id AND starts_at > :now
             ORDER BY starts_at, id
             LIMIT %d
            """.formatted(NEXT_SESSIONS);

    // The page of groups is chosen first (keyset on the (subject, id) index, LIMIT inside) and only
    // those rows are joined with members and ratings. Grouping the joined rows before the LIMIT
    // made MariaDB aggregate every group of the subject for each page (about 275k joined rows per
    // request at bench scale). Every member row meets every rating row of its group in the join,
    // so each rating is counted member_count times: AVG is unchanged by that, counts use DISTINCT.
    private static final String SEARCH = """
            SELECT g.id, g.name, g.subject, g.capacity,
                   COUNT(DISTINCT m.user_id) AS member_count,
                   ROUND(AVG(r.stars), 2) AS average_rating
              FROM (SELECT id, name, subject, capacity
                      FROM study_groups
                     WHERE %s id > :afterId
                     ORDER BY id
                     LIMIT :limit) g
              LEFT JOIN group_members m ON m.group_id = g.id
              LEFT JOIN ratings r ON r.group_id = g.id
             GROUP BY g.id, g.name, g.subject, g.capacity
             ORDER BY g.id
            """;

    private static final String LEADERBOARD = """
            SELECT g.id, g.name, g.subject, g.capacity,
                   (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id) AS member_count,
                   ROUND(AVG(r.stars), 2) AS average_rating,
                   COUNT(*) AS rating_count
              FROM study_groups g
              JOIN ratings r ON r.group_id = g.id
             %s
             GROUP BY g.id, g.name, g.subject, g.capacity
             ORDER BY average_rating DESC, rating_count DESC, g.id
             LIMIT :limit
            """;

    private final JdbcClient jdbc;

    public GroupQueries(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Optional<GroupView> findGroup(long id, Instant now) {
        return jdbc.sql(GROUP).param("id", id)
                .query((rs, n) -> new GroupView(
                        rs.getLong("id"),
                        rs.getString("name"),
                        rs.getString("subject"),
                        rs.getString("description"),
                        rs.getInt("capacity"),
                        rs.getLong("owner_id"),
                        rs.getString("owner_name"),
                        rs.getInt("member_count"),
                        decimal(rs, "average_rating"),
                        rs.getInt("rating_count"),
                        nextSessions(id, now),
                        rs.getLong("version"),
                        instant(rs, "created_at")))
                .optional();
    }

    private List<SessionView> nextSessions(long groupId, Instant now) {
        return jdbc.sql(NEXT_SESSIONS_SQL)
                .param("id", groupId)
                .param("now", LocalDateTime.ofInstant(now, ZoneOffset.UTC))
                .query((rs, n) -> new SessionView(rs.getLong("id"), rs.getLong("group_id"), rs.getString("topic"),
                        instant(rs, "starts_at"), rs.getInt("duration_minutes"), rs.getString("location")))
                .list();
    }

    /** Up to {@code limit} groups after {@code afterId} in id order; all subjects when subject is "". */
    public List<GroupSummary> search(String subject, long afterId, int limit) {
        boolean all = subject.isEmpty();
        JdbcClient.StatementSpec statement = jdbc.sql(SEARCH.formatted(all ? "" : "subject = :subject AND"))
                .param("afterId", afterId)
                .param("limit", limit);
        if (!all) {
            statement = statement.param("subject", subject);
        }
        return statement.query(GroupQueries::summary).list();
    }

    public List<GroupSummary> leaderboard(String subject, int limit) {
        boolean all = subject.isEmpty();
        JdbcClient.StatementSpec statement = jdbc.sql(LEADERBOARD.formatted(all ? "" : "WHERE g.subject = :subject"))
                .param("limit", limit);
        if (!all) {
            statement = statement.param("subject", subject);
        }
        return statement.query(GroupQueries::summary).list();
    }

    private static GroupSummary summary(ResultSet rs, int row) throws SQLException {
        return new GroupSummary(rs.getLong("id"), rs.getString("name"), rs.getString("subject"),
                rs.getInt("capacity"), rs.getInt("member_count"), decimal(rs, "average_rating"));
    }

    private static double decimal(ResultSet rs, String column) throws SQLException {
        BigDecimal value = rs.getBigDecimal(column);
        return value == null ? 0.0 : value.doubleValue();
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, LocalDateTime.class).toInstant(ZoneOffset.UTC);
    }
}
