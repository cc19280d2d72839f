package dev.tandem.cache;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;

import javax.sql.DataSource;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The table {@code cache_invalidations} (Flyway V2): a transactional outbox that is also the log
 * every instance follows.
 *
 * <p>{@link #append} runs on the application's DataSource, so inside a write's transaction it is
 * part of that transaction: the row commits exactly when the change does — including a commit
 * whose outcome the writer never learns — and a rolled-back change leaves no row. Everything else
 * runs on the follower's own connection ({@code followerDataSource}, one connection in autocommit),
 * so following the log never waits for the request pool, and every read is a fresh snapshot: a row
 * committed before a read started is in its answer.
 *
 * <p>Sequence numbers come from AUTO_INCREMENT, which hands them out at insert and not at commit:
 * a row can become visible after rows with higher numbers (its transaction committed later), and a
 * rolled-back insert leaves a number that never appears. {@link LogFollower} handles both.
 *
 * <p>Every time the log compares is the database's ({@code NOW(6)}, as {@code created_at} is set): a
 * row's age, the purge's cut-off, a follower's last note. Why: the instances' clocks are not the
 * database's, and one running ahead by some seconds would purge rows that much younger than the
 * retention, which a follower held up for less than the retention (and so not flushing) may not
 * have read yet.
 */
final class InvalidationLog {

    enum Kind { INVALIDATE, FLUSH }

    /**
     * One row. {@code invalidation} is null for a row this build cannot read (treated as a flush);
     * {@code age}: how long before the read that returned it the row was inserted.
     */
    record Entry(Appended row, Kind kind, Invalidation invalidation, Duration age) {
        long seq() {
            return row.seq();
        }
    }

    /**
     * A row as its relay marker names it: its number, and the random token its writer drew, which
     * its marker in Redis holds (V3): numbers are handed out again once the log restarts, tokens
     * tell the rows apart.
     */
    record Appended(long seq, long relayToken) {
    }

    /** The columns {@link #entry} reads, the row's age by the database's clock. */
    private static final String ENTRY_COLUMNS = "seq, relay_token, kind, targets, TIMESTAMPDIFF(MICROSECOND, created_at, NOW(6))";

    private final JdbcClient transactional;
    private final JdbcClient follower;
    /** The caches rows may name (rows name them, and are read back by name). */
    private final CacheCatalog catalog;

    InvalidationLog(DataSource applicationDataSource, DataSource followerDataSource, CacheCatalog catalog) {
        this.transactional = JdbcClient.create(applicationDataSource);
        this.follower = JdbcClient.create(followerDataSource);
        this.catalog = catalog;
    }

    /** Appends one row; inside the caller's transaction when there is one. */
    Appended append(Kind kind, Invalidation invalidation) {
        KeyHolder key = new GeneratedKeyHolder();
        long token = newToken();
        transactional.sql("INSERT INTO cache_invalidations (kind, targets, relay_token) VALUES (?, ?, ?)")
                .params(kind.ordinal(), invalidation.encode(), token)
                .update(key, "seq");
        return new Appended(key.getKeyAs(Number.class).longValue(), token);
    }

    /** A random relay token, never 0: 0 is the token of rows written before tokens (see L2Tier.relayed). */
    static long newToken() {
        long token;
        do {
            token = ThreadLocalRandom.current().nextLong();
        } while (token == 0);
        return token;
    }

    /**
     * The highest seq in the log, 0 when it is empty. Also notes the MariaDB/MySQL id of the
     * follower's connection (same query, no extra round trip), for the status, for tests that KILL
     * it, and to tell when the follower reads through a new connection (see {@link #databaseIdentity}).
     */
    long maxSeq() {
        return follower.sql("SELECT CONNECTION_ID(), COALESCE(MAX(seq), 0) FROM cache_invalidations")
                .query((rs, row) -> {
                    followerConnectionId = rs.getLong(1);
                    return rs.getLong(2);
                }).single();
    }

    /**
     * The database's identity (V4), drawn when its schema was created, so that a recreated database
     * is told from the one the follower read before. A row read: the follower asks for it only when
     * it may have changed (a new connection, a log that went back) and every few seconds, not with
     * every pass, which would read ten rows a second per instance from a database that otherwise
     * answers the follower from the primary key alone.
     */
    String databaseIdentity() {
        return follower.sql("SELECT identity FROM cache_database").query(String.class).optional()
                .orElseThrow(() -> new IllegalStateException("cache_database holds no identity (it is written by migration V4)"));
    }

    private volatile long followerConnectionId;

    /** The database's id of the follower's connection as of its last pass (0 before the first). */
    long followerConnectionId() {
        return followerConnectionId;
    }

    /** Up to {@code limit} rows above {@code after}, plus any of {@code missing} that are there now, in seq order. */
    List<Entry> read(long after, Collection<Long> missing, int limit) {
        String holes = missing.isEmpty() ? ""
                : " OR seq IN (" + missing.stream().map(String::valueOf).collect(Collectors.joining(",")) + ")";
        return follower.sql("SELECT " + ENTRY_COLUMNS + " FROM cache_invalidations WHERE seq > ?" + holes
                        + " ORDER BY seq LIMIT ?")
                .params(after, limit)
                .query((rs, row) -> entry(rs))
                .list();
    }

    /**
     * Whether a row above {@code after} is a flush or names {@code key} of {@code cache} — or the log
     * cannot vouch that none is: {@code after} is above every row (the log was recreated since) or
     * below the oldest row kept or below how far the purge went ({@code cache_log_purge}, Flyway V7):
     * rows above it may have been deleted. The oldest row alone does not tell: the purge deletes by
     * age, so a write that took its number before the rows after it were purged and committed later
     * is the oldest row, right above a position whose following rows are gone; and a purge between
     * the range's read and the scan deletes rows the scan then does not see. The purge notes how far
     * it goes before it deletes, so reading the note after the scan sees every deletion the scan
     * missed. On the application's DataSource, not the follower's one connection: a request thread
     * asks, and must not hold up the follower.
     */
    boolean changedSince(long after, CacheName<?> cache, Object key) {
        long[] range = transactional.sql("SELECT COALESCE(MIN(seq), 0), COALESCE(MAX(seq), 0) FROM cache_invalidations")
                .query((rs, row) -> new long[]{rs.getLong(1), rs.getLong(2)}).single();
        if (after > range[1] || after < range[0] - 1) {
            return true;
        }
        long from = after;
        while (true) {
            List<Entry> rows = transactional.sql("SELECT " + ENTRY_COLUMNS + " FROM cache_invalidations "
                            + "WHERE seq > ? ORDER BY seq LIMIT 1000")
                    .param(from)
                    .query((rs, row) -> entry(rs))
                    .list();
            for (Entry e : rows) {
                if (CommittedChange.of(e).touches(cache, key)) {
                    return true;
                }
            }
            if (rows.size() < 1000) {
                break;
            }
            from = rows.getLast().seq();
        }
        return after < transactional.sql("SELECT purged_up_to FROM cache_log_purge").query(Long.class).single();
    }

    /** The rows of {@code seqs} that are in the log. */
    List<Entry> readSeqs(Collection<Long> seqs) {
        if (seqs.isEmpty()) {
            return List.of();
        }
        return follower.sql("SELECT " + ENTRY_COLUMNS + " FROM cache_invalidations WHERE seq IN ("
                        + seqs.stream().map(String::valueOf).collect(Collectors.joining(",")) + ") ORDER BY seq")
                .query((rs, row) -> entry(rs))
                .list();
    }

    /**
     * Deletes rows older than {@code retention} that this follower has already followed past
     * ({@code seq <= followedUpTo}); a bounded batch, so no call holds locks for long. The highest
     * row always stays, so that an empty log means a new one (see {@link LogFollower}), never a
     * purged one. Before deleting, it raises {@code cache_log_purge.purged_up_to} to the highest
     * number it deletes, for {@link #changedSince}.
     *
     * <p>It never waits for a writer. A write's row is inserted just before its COMMIT and stays
     * locked until the transaction ends, which for a writer cut off or paused after its last
     * statement is when the server notices the connection is gone (hours, for one that just stops
     * talking). A DELETE over a range of the log reads every row in it and the row past it, and
     * waited for that lock (innodb_lock_wait_timeout, 50 s, and again after each timeout) on the
     * follower's thread: no pass completed meanwhile, so no instance served L1 or read L2 (from the
     * second wait on, the first one's failure let L2 be read without the log), and every other
     * write's INSERT into the log queued behind the waiting DELETEs, so writes hung on every instance
     * (OpenWriteTransactionTest). So the rows are chosen by a plain read, which sees committed rows
     * only and takes no lock, and deleted in runs of consecutive numbers: a run whose next number is
     * a committed row (read too) in one range DELETE, which reads no further than that row; the
     * last row of a run followed by a hole (a write not committed yet, or rolled back, or a row
     * already purged) by its key alone, which locks that row only and reads no neighbour. Deleting
     * every row by its key (one statement and, in autocommit, one redo-log flush each) cost the
     * follower seconds a pass at a few hundred writes a second (6,000 rows: 7 s against 0.03 s for
     * one range, MariaDB 10.11 on a slow disk; StalenessBoundTest's follower, writing 1,250 rows a
     * second, then fell behind its retention); a DELETE over a list of keys, or READ COMMITTED,
     * still waited.
     */
    void purge(Duration retention, long followedUpTo) {
        List<Long> expired = follower.sql("SELECT seq FROM cache_invalidations WHERE created_at < NOW(6) - INTERVAL ? MICROSECOND "
                        + "AND seq <= ? AND seq < (SELECT MAX(seq) FROM cache_invalidations) ORDER BY seq LIMIT 10000")
                .params(micros(retention), followedUpTo)
                .query(Long.class)
                .list();
        if (expired.isEmpty()) {
            return;
        }
        // Noted before the rows go (see changedSince), in its own statement: it waits for no writer.
        follower.sql("UPDATE cache_log_purge SET purged_up_to = GREATEST(purged_up_to, ?)")
                .param(expired.getLast())
                .update();
        List<long[]> runs = consecutiveRuns(expired);
        Set<Long> committedAfter = new HashSet<>(follower.sql("SELECT seq FROM cache_invalidations WHERE seq IN ("
                        + runs.stream().map(run -> String.valueOf(run[1] + 1)).collect(Collectors.joining(",")) + ")")
                .query(Long.class)
                .list());
        // The age again in every DELETE: were the log recreated in between, a new row under an old number stays.
        for (long[] run : runs) {
            long first = run[0];
            long last = run[1];
            if (!committedAfter.contains(last + 1)) {
                follower.sql("DELETE FROM cache_invalidations WHERE seq = ? AND created_at < NOW(6) - INTERVAL ? MICROSECOND")
                        .params(last, micros(retention))
                        .update();
                last--;
            }
            if (first <= last) {
                follower.sql("DELETE FROM cache_invalidations WHERE seq BETWEEN ? AND ? AND created_at < NOW(6) - INTERVAL ? MICROSECOND")
                        .params(first, last, micros(retention))
                        .update();
            }
        }
    }

    /** {first, last} of each run of consecutive numbers in {@code ascending}. */
    static List<long[]> consecutiveRuns(List<Long> ascending) {
        List<long[]> runs = new ArrayList<>();
        long[] run = null;
        for (long seq : ascending) {
            if (run != null && seq == run[1] + 1) {
                run[1] = seq;
            } else {
                run = new long[] {seq, seq};
                runs.add(run);
            }
        }
        return runs;
    }

    /** Notes that {@code instanceId} follows the log and has read it up to {@code position}, now. */
    void noteFollower(String instanceId, long position) {
        // The position bound twice rather than read back with VALUES(position): MySQL deprecates
        // VALUES() here since 8.0.20, and its replacement (a row alias) is not MariaDB syntax.
        follower.sql("INSERT INTO cache_followers (instance_id, position, last_seen) VALUES (?, ?, NOW(6)) "
                        + "ON DUPLICATE KEY UPDATE position = ?, last_seen = NOW(6)")
                .params(instanceId, position, position)
                .update();
    }

    /** The instances that noted themselves in the last {@code window}; notes ten minutes older are deleted. */
    List<String> followersWithin(Duration window) {
        follower.sql("DELETE FROM cache_followers WHERE last_seen < NOW(6) - INTERVAL ? MICROSECOND")
                .param(micros(window.plusMinutes(10)))
                .update();
        return follower.sql("SELECT instance_id FROM cache_followers WHERE last_seen >= NOW(6) - INTERVAL ? MICROSECOND "
                        + "ORDER BY instance_id")
                .param(micros(window))
                .query(String.class)
                .list();
    }

    private static long micros(Duration d) {
        return TimeUnit.NANOSECONDS.toMicros(d.toNanos());
    }

    /** One row of {@link #ENTRY_COLUMNS}. */
    private Entry entry(ResultSet rs) throws SQLException {
        long seq = rs.getLong(1);
        long token = rs.getLong(2);
        int kind = rs.getInt(3);
        byte[] targets = rs.getBytes(4);
        long ageMicros = rs.getLong(5);
        Kind k = kind == Kind.FLUSH.ordinal() ? Kind.FLUSH : Kind.INVALIDATE;
        Invalidation invalidation;
        try {
            invalidation = Invalidation.decode(targets, catalog);
        } catch (IllegalArgumentException e) {
            invalidation = null;
        }
        return new Entry(new Appended(seq, token), invalidation == null ? Kind.FLUSH : k, invalidation, Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(ageMicros)));
    }

    static List<Appended> rows(List<Entry> entries) {
        List<Appended> out = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            out.add(e.row());
        }
        return out;
    }
}
