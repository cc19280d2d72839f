package dev.tandem.seed;


import dev.tandem.cache.TieredCache;
import dev.tandem.group.StudyGroup;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Deterministic seed data: the same scale always yields the same rows with the same ids, so
 * bench runs and tests on different machines read the same groups. Scale 1 is 100 users,
 * 50 groups, 200 sessions and 500 ratings over ten subjects; scale k multiplies every count.
 */
@Component
public class SeedData {

    /** Fixed so that every run generates the same data. */
    public static final long RANDOM_SEED = 20261122L;

    public static final List<String> SUBJECTS = List.of("algorithms", "biology", "chemistry", "databases",
            "economics", "history", "linear-algebra", "literature", "physics", "statistics");

    /** Sessions start in 2030, so "the next three sessions" of a seeded group are stable for years. */
    static final Instant SESSIONS_FROM = Instant.parse("2030-01-01T00:00:00Z");
    static final Instant CREATED_FROM = Instant.parse("2026-01-01T00:00:00Z");

    private static final String[] FIRST = {"Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances",
            "Ken", "Margaret", "Niklaus", "Radia", "Tony", "Leslie", "Shafi", "John", "Hedy"};
    private static final String[] LAST = {"Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen",
            "Thompson", "Hamilton", "Wirth", "Perlman", "Hoare", "Lamport", "Goldwasser", "Backus", "Lamarr"};
    private static final String[] LOCATIONS = {"Library room 1", "Library room 2", "Online", "Cafe", "Lab B"};
    private static final int[] DURATIONS = {30, 45, 60, 90, 120};
    private static final int BATCH = 1000;

    public record Counts(int users, int groups, int sessions, int ratings) {
        public static Counts forScale(int scale) {
            if (scale < 1) {
                throw new IllegalArgumentException("seed scale must be at least 1, got " + scale);
            }
            return new Counts(100 * scale, 50 * scale, 200 * scale, 500 * scale);
        }
    }

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final TieredCache cache;

    public SeedData(JdbcTemplate jdbc, TransactionTemplate transactions, TieredCache cache) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.cache = cache;
    }

    public boolean isEmpty() {
        Integer users = jdbc.queryForObject("SELECT COUNT(*) FROM users", Integer.class);
        return users == null || users == 0;
    }

    /**
     * Empties every table and loads the data of {@code scale}; returns what it loaded. The rows
     * change behind the services' back, so every cache level of every instance is flushed after.
     */
    public Counts reset(int scale) {
        Counts counts = Counts.forScale(scale);
        try {
            truncateAll();
            transactions.executeWithoutResult(status -> load(counts));
        } finally {
            // Also when the load failed after the tables were emptied (TRUNCATE commits at once):
            // the instances must not go on serving rows that are gone.
            cache.flushAll("seed-reset");
        }
        return counts;
    }

    private void truncateAll() {
        // TRUNCATE refuses tables that foreign keys point at unless the checks are off, and the
        // setting is per connection, so all of it runs on one.
        jdbc.execute((ConnectionCallback<Void>) connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET FOREIGN_KEY_CHECKS = 0");
                try {
                    for (String table : List.of("ratings", "study_sessions", "group_members", "study_groups", "users")) {
                        statement.execute("TRUNCATE TABLE " + table);
                    }
                } finally {
                    // a pooled connection: never handed back with the checks off
                    statement.execute("SET FOREIGN_KEY_CHECKS = 1");
                }
            }
            return null;
        });
    }

    private void load(Counts counts) {
        Random random = new Random(RANDOM_SEED);

        List<Object[]> users = new ArrayList<>(counts.users());
        for (int id = 1; id <= counts.users(); id++) {
            String name = FIRST[random.nextInt(FIRST.length)] + " " + LAST[random.nextInt(LAST.length)];
            users.add(new Object[]{id, name, "user" + id + "@example.test", at(CREATED_FROM.plus(id, ChronoUnit.MINUTES))});
        }
        batch("INSERT INTO users (id, name, email, created_at) VALUES (?, ?, ?, ?)", users);

        List<Object[]> groups = new ArrayList<>(counts.groups());
        List<Object[]> members = new ArrayList<>();
        for (int id = 1; id <= counts.groups(); id++) {
            String subject = SUBJECTS.get((id - 1) % SUBJECTS.size());
            int capacity = 5 + random.nextInt(46);
            long owner = 1 + random.nextInt(counts.users());
            Instant created = CREATED_FROM.plus(id, ChronoUnit.HOURS);
            groups.add(new Object[]{id, title(subject) + " circle " + id, subject,
                    "Weekly " + subject.replace('-', ' ') + " study group #" + id, capacity, owner, at(created)});
            Set<Long> joined = new HashSet<>();
            joined.add(owner);
            members.add(new Object[]{id, owner, at(created)});
            int extra = random.nextInt(Math.min(capacity - 1, 10));
            while (joined.size() < 1 + extra) {
                long user = 1 + random.nextInt(counts.users());
                if (joined.add(user)) {
                    members.add(new Object[]{id, user, at(created.plus(joined.size(), ChronoUnit.MINUTES))});
                }
            }
        }
        batch("INSERT INTO study_groups (id, name, subject, description, capacity, owner_id, version, created_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, " + StudyGroup.FIRST_VERSION + ", ?)", groups);
        batch("INSERT INTO group_members (group_id, user_id, joined_at) VALUES (?, ?, ?)", members);

        List<Object[]> sessions = new ArrayList<>(counts.sessions());
        for (int id = 1; id <= counts.sessions(); id++) {
            int group = 1 + random.nextInt(counts.groups());
            Instant start = SESSIONS_FROM.plus(random.nextInt(365 * 24), ChronoUnit.HOURS);
            sessions.add(new Object[]{id, group, "Problem set " + (1 + random.nextInt(40)), at(start),
                    DURATIONS[random.nextInt(DURATIONS.length)], LOCATIONS[random.nextInt(LOCATIONS.length)]});
        }
        batch("INSERT INTO study_sessions (id, group_id, topic, starts_at, duration_minutes, location) "
                + "VALUES (?, ?, ?, ?, ?, ?)", sessions);

        List<Object[]> ratings = new ArrayList<>(counts.ratings());
        Set<Long> rated = new HashSet<>();
        while (ratings.size() < counts.ratings()) {
            long group = 1 + random.nextInt(counts.groups());
            long user = 1 + random.nextInt(counts.users());
            if (rated.add(group << 32 | user)) {
                // Skewed towards good ratings, as real ratings are, so averages differ between groups.
                int stars = Math.min(5, 1 + random.nextInt(3) + random.nextInt(3));
                ratings.add(new Object[]{group, user, stars, stars >= 4 ? "Helpful" : "", at(CREATED_FROM.plus(ratings.size(), ChronoUnit.SECONDS))});
            }
        }
        batch("INSERT INTO ratings (group_id, user_id, stars, comment, created_at) VALUES (?, ?, ?, ?, ?)", ratings);
    }

    private void batch(String sql, List<Object[]> rows) {
        for (int from = 0; from < rows.size(); from += BATCH) {
            jdbc.batchUpdate(sql, rows.subList(from, Math.min(rows.size(), from + BATCH)));
        }
    }

    private static Timestamp at(Instant instant) {
        return Timestamp.valueOf(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
    }

    private static String title(String subject) {
        String words = subject.replace('-', ' ');
        return Character.toUpperCase(words.charAt(0)) + words.substring(1);
    }
}
