package dev.tandem.cache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Follows the invalidation log ({@link InvalidationLog}) on one thread of its own: every
 * {@code poll-interval} it reads the rows it has not seen, makes sure each row's L2 part is in Redis
 * (relaying it when no marker says its writer did), and applies the row to this instance's L1.
 * This is what keeps every L1 coherent and what makes an invalidation durable: a write whose writer
 * died or could not reach Redis after its commit is relayed by whichever instance reads its row first.
 *
 * <p><b>The bound.</b> A pass that starts at time {@code t} sees every row committed before
 * {@code t} (each query is a fresh snapshot), so once the pass has applied them L1 is correct as of
 * {@code t}: L1 is served until {@code t + staleness-bound}, and not at all while no pass has
 * completed within the bound (a starved thread, MySQL unreachable). An instance that falls behind
 * misses nothing: the next pass reads from where it stopped. Only when it could not read the log
 * for longer than {@code retention} (rows may have been deleted meanwhile) does it flush its L1.
 * One that reads every pass and still stays behind (more rows a second than a pass reads) misses
 * nothing either while the rows it has not read are younger than the retention; since rows are
 * numbered as they are inserted, those are younger than the last row it read, whose age it knows.
 *
 * <p><b>Sequence numbers</b> are taken at insert, not at commit, so a row may appear after rows with
 * higher numbers, and a rolled-back insert leaves a number that never appears. A number missing
 * below the highest seen is a <em>hole</em>: every pass asks for the holes again, and a hole is
 * given up after {@code hole-timeout} (far longer than any transaction may run, since the insert is
 * the last statement before the commit). A number given up is still asked for, with the holes, for
 * the {@code retention}: a COMMIT that completes later than the hole timeout (a server stalled in
 * COMMIT, or one completing an ambiguous commit) is then applied when it becomes visible, late,
 * rather than never.
 *
 * <p><b>L2 is blocked</b> (this instance does not read it) while a relay it knows of is pending — a
 * row without marker that it could not relay — and while it re-checks the whole log after a Redis
 * reconnect or topology change (a failover may have lost the last tombstones the old master
 * acknowledged, and their markers with them, in order). Either ends by itself once Redis takes the
 * relays; nothing is flushed. It is also blocked until the follower has checked that L2 was read
 * from this database: at start, once the log restarted or the database was replaced, and after a
 * Redis reconnect; only when it was not is L2 emptied. And it is blocked while L1 is not trusted
 * (no pass within the bound) though the last pass did not fail: a writer that died between its
 * commit and clearing Redis leaves its old entry there for a follower to clear when it reads the row,
 * and a follower that has not read the log lately cannot vouch that no such row is waiting. The
 * reads then go to MySQL. While passes fail (MySQL away), L2 is read: the reads would fail there.
 *
 * <p>Why one class of ~500 lines: the bound, the holes and the L2 block are one state machine over one
 * cursor; split, each part would have to see the others' state.
 */
final class LogFollower {

    private static final Logger log = LoggerFactory.getLogger(LogFollower.class);
    private static final int BATCH = 1000;

    private final InvalidationLog invalidationLog;
    private final L1Tier l1;
    private final L2Tier l2;
    private final CacheMetrics metrics;
    private final long boundNanos;
    private final long retentionNanos;
    private final long holeTimeoutNanos;
    private final Duration retention;

    // Follower state: written by the follower thread only (highestSeen and holeCount are read by status).
    private volatile long highestSeen;
    private volatile int holeCount;
    private final Map<Long, Long> holes = new TreeMap<>();
    /**
     * Numbers given up as holes (seq to when first missed), still asked for until the retention has
     * passed since, after which their rows, if they ever commit, may be purged unseen anyway.
     */
    private final TreeMap<Long, Long> givenUp = new TreeMap<>();
    /**
     * The first row a follower read: the numbers below it, waited for at start as holes, were mostly
     * purged before it started (thousands of them), and are not asked for once given up.
     */
    private long firstRead;
    /** The most numbers asked for once given up: the oldest go first beyond it. */
    private static final int GIVEN_UP_KEPT = 1_000;
    /**
     * Every row inserted before this moment (System.nanoTime) has been read or is waited for as a
     * hole: a caught-up pass's start, or when a pass read a full batch, its last row's insert.
     */
    private long readUpToNanos;
    private long lastPurgeNanos;

    // Read by request threads.
    /** The last pass failed (MySQL away or failing): L2 is read though L1 is not trusted (l2Readable). */
    private volatile boolean failing;
    private volatile boolean caughtUpOnce;
    private volatile long trustedUntilNanos = System.nanoTime() - 1;
    /** Re-checks asked for (recheckAll) and the last one a completed re-check began after. */
    private final AtomicLong recheckAsked = new AtomicLong();
    private volatile long recheckDone;
    /** Rows whose L2 part this instance knows is not in Redis (its own failed relays, or others'). */
    private final ConcurrentSkipListSet<Long> pendingRelays = new ConcurrentSkipListSet<>();
    /**
     * This instance's own rows that its writer already relayed (or marked pending) and applied to
     * L1 after the commit: the follower skips them, since applying them again would only evict the
     * fresh entries that reads have put back in L1 since.
     */
    private final ConcurrentSkipListSet<Long> appliedByWriter = new ConcurrentSkipListSet<>();
    /**
     * Whether Redis records this database as the one L2 was read from (see {@link #checkL2Database}):
     * checked before L2 is first read, after the log restarted or the database was replaced, and after
     * a Redis reconnect; L2 is not read meanwhile. Also checked every few seconds while L2 is read.
     */
    private volatile boolean l2OfThisDatabase;
    /** The identity of the database the last pass read the log of (null before the first); follower thread. */
    private String databaseIdentity;
    /** The follower's connection and the time (System.nanoTime) when the identity was last read. */
    private long identityConnection;
    private long identityReadNanos;
    private volatile long lastPassAgeBase = System.nanoTime();
    private final String instanceId;
    /** The instances that noted themselves as followers in the last 30 s (this one included). */
    private volatile List<String> followers = List.of();
    /** Who hears of the changes read (group watches); written at start-up, read by the follower thread. */
    private final List<LogSubscriber> subscribers = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** What the current pass read, for the subscribers; follower thread only. */
    private final List<CommittedChange> readThisPass = new ArrayList<>();
    /** The position last handed to the subscribers (-1 before the first pass); read by request threads. */
    private volatile long positionNotified = -1;

    LogFollower(InvalidationLog invalidationLog, L1Tier l1, L2Tier l2, CacheMetrics metrics,
                CacheProperties properties) {
        this.invalidationLog = invalidationLog;
        this.l1 = l1;
        this.l2 = l2;
        this.metrics = metrics;
        this.boundNanos = properties.stalenessBound().toNanos();
        this.retention = properties.log().retention();
        this.retentionNanos = retention.toNanos();
        this.holeTimeoutNanos = properties.log().holeTimeout().toNanos();
        this.instanceId = properties.instanceId();
    }

    /** Whether L1 may be served now (see the class comment). */
    boolean l1Trusted() {
        return System.nanoTime() - trustedUntilNanos < 0;
    }

    /**
     * Whether L2 may be read now, as far as the log goes (the breaker is the caller's business): not
     * while L1 is not trusted because a follower that reaches MySQL has not read the log through
     * lately (held up, starved: the reads go to MySQL), but while the log cannot be read at all,
     * MySQL being away, when a read that passed L2 by would fail too (README, "What it does not
     * promise").
     */
    boolean l2Readable() {
        return caughtUpOnce && l2OfThisDatabase && pendingRelays.isEmpty() && !rechecking() && (l1Trusted() || failing);
    }

    /** A writer's relay failed: L2 is not read here until the follower has relayed {@code seq}. */
    void relayPending(long seq) {
        pendingRelays.add(seq);
    }

    /** The writer of {@code seq} (this instance) has done what following it would do. */
    void appliedByWriter(long seq) {
        appliedByWriter.add(seq);
    }

    void subscribe(LogSubscriber subscriber) {
        subscribers.add(subscriber);
    }

    /** Every row up to this seq has been read (or given up as a hole); see {@link LogSubscriber}. */
    long position() {
        return Math.max(0, positionNotified);
    }

    private long followedUpTo() {
        return holes.isEmpty() ? highestSeen : ((TreeMap<Long, Long>) holes).firstKey() - 1;
    }

    /** Redis may have lost acknowledged writes (a reconnect, a new cluster topology): re-check every row. */
    void recheckAll() {
        recheckAsked.incrementAndGet();
    }

    /** One pass; the follower thread calls it every poll interval. Never throws. */
    void pass() {
        long started = System.nanoTime();
        try {
            boolean gap = caughtUpOnce && started - readUpToNanos > retentionNanos - boundNanos;
            if (l2 != null) {
                l2.probeIfRecovering();
            }
            boolean caughtUp = follow();
            if (l2 != null && !l2OfThisDatabase) {
                checkL2Database();
            }
            if (rechecking()) {
                recheckLog();
            }
            retryPendingRelays();
            if (gap) {
                // Rows older than the retention may have been deleted before this instance read
                // them: what it missed cannot be replayed, so L1 starts afresh.
                log.info("Rows of the invalidation log up to {} ms old were not read (longer than its retention): flushing L1",
                        TimeUnit.NANOSECONDS.toMillis(started - readUpToNanos));
                flushL1("log-gap");
                readThisPass.add(CommittedChange.missedRows());
            }
            if (caughtUp) {
                readUpToNanos = started;
                lastPassAgeBase = started;
                caughtUpOnce = true;
                trustedUntilNanos = started + boundNanos;
            }
            purgeNowAndThen(started);
            notifySubscribers();
            if (failing) {
                failing = false;
                log.info("Reading the invalidation log again");
            }
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("Cannot read the invalidation log ({}); L1 is not served until it can", e.toString());
            }
        } catch (Error e) {
            // Thrown out of the scheduled task, an Error (an OutOfMemoryError in a batch, a bug's
            // StackOverflowError) would cancel the schedule for good, silently: a
            // ScheduledExecutorService suppresses every later run of a task that threw, and the
            // instance would never read the log again. Not served from L1 until a pass succeeds.
            failing = true;
            log.error("A pass over the invalidation log failed; L1 is not served until one succeeds", e);
        }
    }

    /** Reads and applies what is new; true when it read everything there was. */
    private boolean follow() {
        long max = invalidationLog.maxSeq();
        String identity = databaseIdentityNow(max);
        boolean replaced = databaseIdentity != null && !databaseIdentity.equals(identity);
        if (replaced || max < highestSeen) {
            // Another database (recreated, or another server's), or the table was emptied and its
            // numbering restarted: what this instance holds cannot be matched against the log. The
            // identity tells a recreated database whose log has not gone back below what this
            // instance had seen (it had seen nothing, or the new log grew past that while the
            // follower could not read).
            if (replaced) {
                log.warn("The database was replaced (its identity is {}, was {}): flushing L1", identity, databaseIdentity);
            } else {
                log.info("The invalidation log restarted (highest seq {} < {} already seen): flushing L1", max, highestSeen);
            }
            // and L2 may hold the former database's entries: checked again before it is read
            l2OfThisDatabase = false;
            highestSeen = 0;
            holes.clear();
            givenUp.clear();
            firstRead = 0;
            // This instance's own rows of the former log, not yet passed: the new log numbers other
            // rows alike, which the follower must not skip as applied.
            appliedByWriter.clear();
            flushL1(replaced ? "database-replaced" : "log-restarted");
            readThisPass.add(CommittedChange.missedRows());
        }
        databaseIdentity = identity;
        if (max == highestSeen && holes.isEmpty() && givenUp.isEmpty()) {
            return true;
        }
        List<InvalidationLog.Entry> entries = invalidationLog.read(highestSeen, missing(), BATCH);
        long now = System.nanoTime();
        if (highestSeen == 0 && !entries.isEmpty()) {
            highestSeen = startingFloor(entries.getFirst());
            firstRead = entries.getFirst().seq();
        }
        Set<Long> late = givenUp.isEmpty() ? Set.of() : new HashSet<>();
        for (InvalidationLog.Entry e : entries) {
            holes.remove(e.seq());
            if (givenUp.remove(e.seq()) != null) {
                late.add(e.seq());
                metrics.lateRows.increment();
                log.info("Log row {} became visible after its number was given up as a hole: applied late", e.seq());
            }
            for (long s = highestSeen + 1; s < e.seq(); s++) {
                holes.put(s, now);
            }
            highestSeen = Math.max(highestSeen, e.seq());
        }
        if (entries.size() == BATCH) {
            long lastInserted = now - entries.getLast().age().toNanos();
            if (lastInserted - readUpToNanos > 0) {
                readUpToNanos = lastInserted;
            }
        }
        relayWhatIsMissing(entries);
        for (InvalidationLog.Entry e : entries) {
            apply(e, late.contains(e.seq()));
            readThisPass.add(CommittedChange.of(e));
        }
        expireHoles(now);
        holeCount = holes.size();
        // Own rows the follower has passed without seeing (their transaction rolled back after all).
        appliedByWriter.headSet(holes.isEmpty() ? highestSeen + 1 : ((TreeMap<Long, Long>) holes).firstKey()).clear();
        return entries.size() < BATCH;
    }

    /**
     * The database's identity, read again only when it may have changed: at the first pass, through
     * a new connection (another server, or the pool reconnected after the database went away), when
     * the log went back, and every {@link #HOUSEKEEPING} (a database replaced behind a connection
     * that stayed open). Otherwise the identity the follower knows.
     */
    private String databaseIdentityNow(long max) {
        long now = System.nanoTime();
        long connection = invalidationLog.followerConnectionId();
        if (databaseIdentity == null || connection != identityConnection || max < highestSeen
                || now - identityReadNanos >= HOUSEKEEPING.toNanos()) {
            String identity = invalidationLog.databaseIdentity();
            identityConnection = connection;
            identityReadNanos = now;
            return identity;
        }
        return databaseIdentity;
    }

    /** How often the follower purges, notes itself, renews the newest marker and re-reads the identity. */
    private static final Duration HOUSEKEEPING = Duration.ofSeconds(5);

    /**
     * Where a follower that has seen nothing yet starts: below the first row it reads are the rows
     * purged before it started (the log's numbers keep growing: millions after a while), and only the
     * last few of those numbers can still be transactions in flight. A number below a row older than
     * {@code hole-timeout} is older than that itself: given up at once. Otherwise at most
     * {@link #IN_FLIGHT_AT_START} numbers below the first row are waited for as holes, far more than
     * the transactions all instances' pools can have open; without the bound, a new instance would
     * wait for every purged number of the log's life (and ask for all of them in every pass).
     */
    private long startingFloor(InvalidationLog.Entry first) {
        boolean old = first.age().toNanos() > holeTimeoutNanos;
        return Math.max(0, first.seq() - 1 - (old ? 0 : IN_FLIGHT_AT_START));
    }

    private static final int IN_FLIGHT_AT_START = 10_000;

    /** Relays every row of {@code entries} whose marker is not in Redis; records the ones it could not. */
    private void relayWhatIsMissing(List<InvalidationLog.Entry> entries) {
        if (l2 == null || entries.isEmpty()) {
            return;
        }
        List<Boolean> relayed;
        try {
            relayed = l2.relayed(InvalidationLog.rows(entries));
        } catch (RedisGateway.Unavailable e) {
            for (InvalidationLog.Entry entry : entries) {
                pendingRelays.add(entry.seq());
            }
            return;
        }
        for (int i = 0; i < entries.size(); i++) {
            if (!relayed.get(i)) {
                relay(entries.get(i));
            }
        }
    }

    private void relay(InvalidationLog.Entry e) {
        try {
            l2.relay(e.row(), e.kind(), e.invalidation() == null ? Invalidation.create() : e.invalidation());
            metrics.relayedForOthers.increment();
            pendingRelays.remove(e.seq());
        } catch (RedisGateway.Unavailable ex) {
            metrics.invalidationsFailed.increment();
            pendingRelays.add(e.seq());
        }
    }

    /** {@code late}: read after its number was given up (its age is from its insert, long before its commit). */
    private void apply(InvalidationLog.Entry e, boolean late) {
        if (appliedByWriter.remove(e.seq())) {
            return;
        }
        if (l1 != null) {
            if (e.kind() == InvalidationLog.Kind.FLUSH) {
                flushL1("remote-flush");
            } else {
                l1.invalidate(e.invalidation());
            }
        }
        metrics.invalidationsApplied.increment();
        if (caughtUpOnce && !late) {
            // The rows a starting instance replays are not propagation: only rows read after the
            // first complete pass say how long an invalidation takes to arrive. (Nor is a late row's
            // age, counted from an insert whose commit came long after.)
            metrics.invalidationLag.record(e.age().isNegative() ? Duration.ZERO : e.age());
        }
    }

    /** After the pass applied what it read: subscribers hear of it when there is anything new. */
    private void notifySubscribers() {
        long position = followedUpTo();
        if (readThisPass.isEmpty() && position == positionNotified) {
            return;
        }
        List<CommittedChange> changes = List.copyOf(readThisPass);
        readThisPass.clear();
        positionNotified = position;
        for (LogSubscriber subscriber : subscribers) {
            try {
                subscriber.followed(changes, position);
            } catch (RuntimeException e) {
                log.error("A log subscriber failed; the follower goes on", e);
            }
        }
    }

    private void expireHoles(long now) {
        for (Iterator<Map.Entry<Long, Long>> it = holes.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Long> hole = it.next();
            if (now - hole.getValue() > holeTimeoutNanos) {
                it.remove();
                if (hole.getKey() > firstRead) {
                    // since it was first missed, about when its row was inserted: the purge counts a
                    // row's retention from its insert, so asking for it longer would find nothing
                    givenUp.put(hole.getKey(), hole.getValue());
                }
                metrics.holesAbandoned.increment();
            }
        }
        givenUp.values().removeIf(since -> now - since > retentionNanos);
        while (givenUp.size() > GIVEN_UP_KEPT) {
            givenUp.pollFirstEntry();
        }
    }

    /** The numbers below the highest seen that a pass asks for: the holes and those given up lately. */
    private Collection<Long> missing() {
        if (givenUp.isEmpty()) {
            return holes.keySet();
        }
        List<Long> missing = new ArrayList<>(holes.keySet());
        missing.addAll(givenUp.keySet());
        return missing;
    }

    /**
     * L2 may have been filled from another database: this one recreated (dropped, migrated again
     * and loaded) under a Redis that kept its keys, or Redis pointed at another deployment's
     * database. Nothing in the log can tell a new instance (a recreated log numbers its rows from 1
     * again, and it has seen no other numbers), and L2 would serve the former rows until their time
     * to live. So Redis records the identity of the database its entries were read from (drawn by
     * migration V4), and an instance that finds another one recorded empties L2 before it reads it,
     * then records its own: emptied first, so that no instance takes the old entries for this
     * database's in between (two that find the old record both empty L2, which costs only misses).
     * None recorded (a new Redis, one restarted empty, an evicted record, or one an older build
     * filled from this database) is recorded without a flush. True when the check was made; Redis
     * away: false, and L2 is not read until a later pass has made it.
     *
     * <p>The flush runs on this thread: a SCAN of the keyspace (of every master on a cluster), during
     * which L1 may pass its bound and be bypassed. It happens only when the database did change. (A
     * replica that replicates statements, not rows, draws an identity of its own for V4's UUID();
     * promoted, it empties L2 once, for nothing. Row-based replication, MySQL's default and what
     * MariaDB's mixed format uses for UUID(), copies the primary's.)
     */
    private boolean checkL2Database() {
        try {
            String recorded = l2.databaseRecorded();
            if (recorded != null && !recorded.equals(databaseIdentity)) {
                l2OfThisDatabase = false;
                log.warn("Redis holds the cache of another database ({}, this one is {}): emptying L2", recorded,
                        databaseIdentity);
                l2.flush();
            }
            if (!databaseIdentity.equals(recorded)) {
                l2.recordDatabase(databaseIdentity);
            }
            l2OfThisDatabase = true;
            return true;
        } catch (RedisGateway.Unavailable e) {
            return false;
        }
    }

    /** Pending relays: done when their marker is there now (another instance relayed), else relayed here. */
    private void retryPendingRelays() {
        if (l2 == null || pendingRelays.isEmpty()) {
            return;
        }
        List<Long> seqs = new ArrayList<>(pendingRelays);
        for (int from = 0; from < seqs.size(); from += BATCH) {
            List<Long> batch = seqs.subList(from, Math.min(seqs.size(), from + BATCH));
            List<InvalidationLog.Entry> rows = invalidationLog.readSeqs(batch);
            // A pending row no longer in the log was deleted after the retention by an instance
            // that did not have it pending (each keeps the rows it has: purgeNowAndThen), so one
            // that relayed it or found it relayed.
            batch.stream().filter(s -> rows.stream().noneMatch(r -> r.seq() == s)).forEach(pendingRelays::remove);
            try {
                List<Boolean> relayed = l2.relayed(InvalidationLog.rows(rows));
                for (int i = 0; i < rows.size(); i++) {
                    if (relayed.get(i)) {
                        pendingRelays.remove(rows.get(i).seq());
                    } else {
                        relay(rows.get(i));
                    }
                }
            } catch (RedisGateway.Unavailable e) {
                return;
            }
        }
        if (pendingRelays.isEmpty()) {
            log.info("Every pending invalidation is relayed to Redis: reading L2 again");
        }
    }

    /**
     * After a Redis reconnect or a new cluster topology: every row of the log is checked for its
     * marker and relayed if it has none; on a cluster, where a marker does not vouch for tombstones
     * on other masters ({@link L2Tier#markersReplicateWithTheirTombstones}), every row is relayed
     * again, at the price of a miss on each key the last minute's writes touched.
     */
    private void recheckLog() {
        // A reconnect during the re-check asks for another: rows this one found relayed may have
        // been checked on the Redis that went away.
        long asked = recheckAsked.get();
        if (l2 == null) {
            recheckDone = asked;
            return;
        }
        // A Redis that restarted empty, or a replica promoted before it had the record, lost the
        // record (or brought back an old one, with the entries it stood for).
        if (!checkL2Database()) {
            return;
        }
        long after = 0;
        int relayedBefore = (int) metrics.relayedForOthers.count();
        boolean markersVouch = l2.markersReplicateWithTheirTombstones();
        try {
            while (true) {
                List<InvalidationLog.Entry> rows = invalidationLog.read(after, List.of(), BATCH);
                if (rows.isEmpty()) {
                    break;
                }
                List<Boolean> relayed = markersVouch ? l2.relayed(InvalidationLog.rows(rows)) : null;
                for (int i = 0; i < rows.size(); i++) {
                    if (relayed == null || !relayed.get(i)) {
                        relay(rows.get(i));
                    }
                }
                after = rows.getLast().seq();
                if (rows.size() < BATCH) {
                    break;
                }
            }
        } catch (RedisGateway.Unavailable e) {
            return;
        }
        recheckDone = asked;
        log.info("Re-checked the invalidation log after a Redis reconnect or a new cluster topology: {} rows relayed again",
                (int) metrics.relayedForOthers.count() - relayedBefore);
    }

    /**
     * Every few seconds: deletes rows past the retention, renews the newest row's marker, and notes
     * this instance among the followers. A row this instance has a relay pending for stays, however
     * old: deleted, it could not be relayed from here once Redis is back, and with every instance
     * cut off from Redis for longer than the retention no one else would have relayed it either.
     */
    private void purgeNowAndThen(long now) {
        if (now - lastPurgeNanos < HOUSEKEEPING.toNanos()) {
            return;
        }
        lastPurgeNanos = now;
        long followedUpTo = followedUpTo();
        Long firstPending = pendingRelays.ceiling(Long.MIN_VALUE);
        invalidationLog.purge(retention, firstPending == null ? followedUpTo : Math.min(followedUpTo, firstPending - 1));
        if (l2 != null && l2OfThisDatabase) {
            // the record may have been evicted (it has no time to live, but maxmemory may take it)
            // or written over by another deployment sharing this Redis
            checkL2Database();
        }
        if (l2 != null && highestSeen > 0) {
            try {
                l2.keepMarker(highestSeen);
            } catch (RedisGateway.Unavailable e) {
                // Redis is away: the marker may expire meanwhile, and the row is then relayed again
                // once it is back (for a flush row, L2 emptied: more misses, nothing stale).
            }
        }
        invalidationLog.noteFollower(instanceId, followedUpTo);
        followers = List.copyOf(invalidationLog.followersWithin(Duration.ofSeconds(30)));
    }

    void flushL1(String reason) {
        if (l1 != null) {
            l1.flush();
            metrics.flush(reason);
        }
    }

    // ---- status ------------------------------------------------------------------------------

    long lastPassAgeMillis() {
        return (System.nanoTime() - lastPassAgeBase) / 1_000_000;
    }

    long highestSeen() {
        return highestSeen;
    }

    /** The other instances following the log (seen in the last 30 s). */
    List<String> peers() {
        return followers.stream().filter(id -> !id.equals(instanceId)).toList();
    }

    long connectionId() {
        return invalidationLog.followerConnectionId();
    }

    int holes() {
        return holeCount;
    }

    int pendingRelays() {
        return pendingRelays.size();
    }

    /** Whether Redis was found to hold this database's L2 (see {@link #checkL2Database}). */
    boolean l2OfThisDatabase() {
        return l2 == null || l2OfThisDatabase;
    }

    boolean rechecking() {
        return recheckAsked.get() != recheckDone;
    }

    /** Grows each time a re-check completes (by the re-checks asked for until it began). */
    long rechecksCompleted() {
        return recheckDone;
    }
}
