package dev.tandem.testsupport;

import org.springframework.jdbc.core.simple.JdbcClient;

import java.util.List;
import java.util.Map;

/**
 * What the wire tests of both services ask of the seeded database, asked once: rows that fit a
 * request (a group with room, a user who is not a member) and the whole database, for "a rejected
 * write changed nothing" checks that compare every row of every table before and after.
 */
public final class SeededRows {

    private SeededRows() {
    }

    /** Every row of every table, as MariaDB holds it, in a stable order. */
    public static Map<String, List<Map<String, Object>>> database(JdbcClient jdbc) {
        return Map.of(
                "users", rows(jdbc, "SELECT * FROM users ORDER BY id"),
                "study_groups", rows(jdbc, "SELECT * FROM study_groups ORDER BY id"),
                "group_members", rows(jdbc, "SELECT * FROM group_members ORDER BY group_id, user_id"),
                "study_sessions", rows(jdbc, "SELECT * FROM study_sessions ORDER BY id"),
                "ratings", rows(jdbc, "SELECT * FROM ratings ORDER BY group_id, user_id"));
    }

    /**
     * MariaDB's checksum of every row of each table: row contents, not just counts, and cheaper
     * than {@link #database} where only "changed or not" is asked.
     */
    public static List<String> checksums(JdbcClient jdbc) {
        return jdbc.sql("CHECKSUM TABLE users, study_groups, group_members, study_sessions, ratings EXTENDED")
                .query((rs, i) -> rs.getString(1) + "=" + rs.getString(2)).list();
    }

    /**
     * A group's stored row, read from MariaDB itself: a GET may be answered from the cache, so
     * "nothing changed" is checked here as well.
     */
    public static Map<String, Object> groupRow(JdbcClient jdbc, long id) {
        return jdbc.sql("SELECT name, subject, description, capacity, owner_id, version FROM study_groups WHERE id = ?")
                .param(id).query().singleRow();
    }

    /** The first group that another member can still join. */
    public static long groupWithRoom(JdbcClient jdbc) {
        return jdbc.sql("""
                SELECT g.id FROM study_groups g
                WHERE g.capacity > (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id)
                ORDER BY g.id LIMIT 1""").query(Long.class).single();
    }

    /** The first user who is not a member of {@code groupId}. */
    public static long nonMember(JdbcClient jdbc, long groupId) {
        return jdbc.sql("SELECT u.id FROM users u WHERE u.id NOT IN (SELECT user_id FROM group_members WHERE group_id = ?) ORDER BY u.id LIMIT 1")
                .param(groupId).query(Long.class).single();
    }

    public static boolean isMember(JdbcClient jdbc, long groupId, long userId) {
        return jdbc.sql("SELECT COUNT(*) FROM group_members WHERE group_id = ? AND user_id = ?")
                .params(groupId, userId).query(Long.class).single() > 0;
    }

    /**
     * A group with room and at least two members, a member of it who is not its owner (may leave),
     * and a user who neither belongs to it nor rated it (may join and rate): the rows that every
     * write of the API can act on successfully, so that a hostile variant fails only for its flaw.
     */
    public record WriteTargets(long group, long member, long outsider) {

        public static WriteTargets find(JdbcClient jdbc) {
            long group = jdbc.sql("""
                    SELECT g.id FROM study_groups g
                    WHERE (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id) BETWEEN 2 AND g.capacity - 1
                    ORDER BY g.id LIMIT 1""").query(Long.class).single();
            long member = jdbc.sql("""
                    SELECT m.user_id FROM group_members m JOIN study_groups g ON g.id = m.group_id
                    WHERE m.group_id = ? AND m.user_id <> g.owner_id ORDER BY m.user_id LIMIT 1""")
                    .param(group).query(Long.class).single();
            long outsider = jdbc.sql("""
                    SELECT u.id FROM users u
                    WHERE u.id NOT IN (SELECT user_id FROM group_members WHERE group_id = ?)
                      AND u.id NOT IN (SELECT user_id FROM ratings WHERE group_id = ?)
                    ORDER BY u.id LIMIT 1""").param(group).param(group).query(Long.class).single();
            return new WriteTargets(group, member, outsider);
        }
    }

    private static List<Map<String, Object>> rows(JdbcClient jdbc, String sql) {
        return jdbc.sql(sql).query().listOfRows();
    }
}
