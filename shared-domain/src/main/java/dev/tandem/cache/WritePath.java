package dev.tandem.cache;

import dev.tandem.db.AmbiguousCommits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.ArrayList;
import java.util.List;

/**
 * What a write made stale, from the write's transaction to every cache level.
 *
 * <ol>
 * <li>Before the commit, the invalidations the transaction collected are appended to the
 * invalidation log as one row, in the transaction itself (a transactional outbox): the row commits
 * exactly when the change does. If it cannot be written, the write fails.</li>
 * <li>After the commit, before the write method returns, the writer relays the row to Redis (its
 * tombstones and dropped generations, then its marker, in one step) and then invalidates its own L1
 * — in that order, so that a local reader cannot refill L1 from the old L2 value.</li>
 * <li>Every instance's {@link LogFollower} then reads the row, relays it if no marker says the
 * writer did (the writer died, or could not reach Redis), and applies it to its L1.</li>
 * </ol>
 *
 * <p>A commit whose outcome is unknown (the connection died during COMMIT) counts as a commit: its
 * row may be in the log, and the client is told to read before retrying, so the writer acts on it
 * at once rather than leaving it to the followers. Spring reports such a commit as
 * {@code STATUS_UNKNOWN}, or — {@code JpaTransactionManager}, which rolls back on the dead
 * connection — as rolled back; only the JDBC layer saw the commit fail after it was sent
 * ({@link AmbiguousCommits}). Acting for a transaction that was in fact rolled back costs a miss.
 *
 * <p>No lock is held across a Redis round trip: the log, not a publisher's sequence, orders the
 * invalidations, so writers relay concurrently.
 *
 * <p><b>Nor a connection.</b> Spring runs afterCompletion before it hands the transaction's
 * connection back to the pool, so a relay made there kept the connection for as long as Redis took
 * to answer or time out: with Redis silent, a pool's worth of writes waiting there left every other
 * request without a connection (StalledRedisTest). So a transactional method called through its
 * proxy relays its commits when it returns, with the connection back in the pool
 * ({@link RelayAfterRelease}); a transaction begun otherwise (a TransactionTemplate) still relays in
 * afterCompletion. Either way the relay is made before the write returns to its caller.
 */
final class WritePath {

    private static final Logger log = LoggerFactory.getLogger(WritePath.class);

    private final CacheMode mode;
    private final CacheCatalog catalog;
    private final InvalidationLog invalidationLog;
    private final L1Tier l1;
    private final L2Tier l2;
    private final LogFollower follower;
    private final CacheMetrics metrics;

    /**
     * The relays of the commits made during the innermost transactional call under way on this
     * thread ({@link #relayingOnReturn}), made when it returns; null: none under way, relay at once.
     */
    private final ThreadLocal<List<Runnable>> relaysOnReturn = new ThreadLocal<>();

    WritePath(CacheMode mode, CacheCatalog catalog, InvalidationLog invalidationLog, L1Tier l1, L2Tier l2,
              LogFollower follower, CacheMetrics metrics) {
        this.mode = mode;
        this.catalog = catalog;
        this.invalidationLog = invalidationLog;
        this.l1 = l1;
        this.l2 = l2;
        this.follower = follower;
        this.metrics = metrics;
    }

    /**
     * Collects {@code invalidation} into the current transaction's log row. Without a transaction it
     * appends and applies it at once — also in a scope that suspended one (NOT_SUPPORTED): what was
     * written there has committed by itself, whatever the scope does next. A REQUIRES_NEW
     * transaction collects its own, logged and applied when it commits (see PendingInvalidation).
     */
    void invalidateAfterCommit(Invalidation invalidation) {
        if (mode == CacheMode.NONE || invalidation.isEmpty()) {
            return;
        }
        // Before anything is logged: a row naming a cache no follower knows would read as a flush.
        for (Invalidation.Target target : invalidation.targets()) {
            catalog.require(target.cache());
        }
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            committed(invalidationLog.append(InvalidationLog.Kind.INVALIDATE, invalidation), invalidation, true);
            return;
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            // The row could not be written (MySQL refuses writes in a read-only transaction), and a
            // read-only transaction changes nothing that would need it.
            throw new IllegalStateException("invalidateAfterCommit in a read-only transaction: " + invalidation);
        }
        PendingInvalidation pending = (PendingInvalidation) TransactionSynchronizationManager.getResource(this);
        if (pending == null) {
            pending = new PendingInvalidation();
            TransactionSynchronizationManager.bindResource(this, pending);
            TransactionSynchronizationManager.registerSynchronization(pending);
        }
        pending.invalidation.and(invalidation);
    }

    /**
     * Runs {@code call} (a transactional method, the transaction interceptor inside it) and then the
     * relays of the commits made during it, once that interceptor has released their connection. The
     * call's own result or exception is returned or thrown after them.
     */
    <T> T relayingOnReturn(Call<T> call) throws Throwable {
        List<Runnable> outer = relaysOnReturn.get();
        List<Runnable> relays = new ArrayList<>();
        relaysOnReturn.set(relays);
        try {
            return call.run();
        } finally {
            relaysOnReturn.set(outer);
            for (Runnable relay : relays) {
                try {
                    relay.run();
                } catch (RuntimeException e) {
                    // as Spring does with a failing afterCompletion: logged, not the caller's failure
                    log.error("Relaying a committed invalidation failed", e);
                }
            }
        }
    }

    /** A transactional method's invocation, as {@link #relayingOnReturn} runs it. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws Throwable;
    }

    /** {@code relay} now, or when the transactional call under way returns (see {@link #relayingOnReturn}). */
    private void relayOnceTheConnectionIsBack(Runnable relay) {
        List<Runnable> relays = relaysOnReturn.get();
        if (relays == null) {
            relay.run();
        } else {
            relays.add(relay);
        }
    }

    /** A flush of every level of every instance: logged like a write, then applied here at once. */
    void flushAll(String reason) {
        if (mode == CacheMode.NONE) {
            return;
        }
        InvalidationLog.Appended row = invalidationLog.append(InvalidationLog.Kind.FLUSH, Invalidation.create());
        metrics.invalidationsSent.increment();
        // L2 before L1, for the same reason as invalidations: L1 must not refill from old L2.
        if (l2 != null) {
            try {
                l2.relay(row, InvalidationLog.Kind.FLUSH, Invalidation.create());
            } catch (RedisGateway.Unavailable e) {
                metrics.invalidationsFailed.increment();
                follower.relayPending(row.seq());
            }
        }
        follower.flushL1(reason);
        follower.appliedByWriter(row.seq());
    }

    /**
     * L2 first, then this instance's L1 (see the class comment). Never throws. A commit whose outcome
     * is unknown ({@code known} false) may still become visible after this — the server can be
     * committing as the connection dies — and a read meanwhile refills both levels from the old row
     * over these tombstones. So its row is relayed without a marker and not noted as applied here:
     * every follower that reads the row, once it is visible, relays and applies it again (a rolled-back
     * row never appears, and costs the misses of this invalidation only).
     */
    private void committed(InvalidationLog.Appended row, Invalidation invalidation, boolean known) {
        long seq = row.seq();
        metrics.invalidationsSent.increment();
        try {
            if (l2 != null) {
                try {
                    if (known) {
                        l2.relay(row, InvalidationLog.Kind.INVALIDATE, invalidation);
                    } else {
                        l2.invalidateUnmarked(invalidation);
                    }
                } catch (RedisGateway.Unavailable e) {
                    // Until it is relayed, this instance does not read L2 (which may still hold the
                    // old value); its follower, and every other one, relays the row.
                    metrics.invalidationsFailed.increment();
                    follower.relayPending(seq);
                }
            }
        } catch (RuntimeException e) {
            log.error("Unexpected failure relaying invalidation {} (log seq {})", invalidation, seq, e);
            follower.relayPending(seq);
        } finally {
            if (l1 != null) {
                l1.invalidate(invalidation);
            }
            if (known) {
                follower.appliedByWriter(seq);
            }
        }
    }

    /**
     * The invalidations of one transaction: one log row, written before the commit, acted on after
     * it. Bound to the transaction as a resource; a transaction suspended for a REQUIRES_NEW one
     * takes its pending row with it, so the inner transaction collects (and commits) its own.
     */
    private final class PendingInvalidation implements TransactionSynchronization {
        final Invalidation invalidation = Invalidation.create();
        private InvalidationLog.Appended row;
        /** {@link AmbiguousCommits#count()} just before the commit (or rollback) began. */
        private long ambiguousCommitsBefore;

        @Override
        public void suspend() {
            TransactionSynchronizationManager.unbindResource(WritePath.this);
        }

        @Override
        public void resume() {
            TransactionSynchronizationManager.bindResource(WritePath.this, this);
        }

        @Override
        public void beforeCommit(boolean readOnly) {
            row = invalidationLog.append(InvalidationLog.Kind.INVALIDATE, invalidation);
        }

        @Override
        public void beforeCompletion() {
            ambiguousCommitsBefore = AmbiguousCommits.count();
        }

        @Override
        public void afterCompletion(int status) {
            try {
                boolean ambiguous = status == STATUS_UNKNOWN
                        || status == STATUS_ROLLED_BACK && AmbiguousCommits.count() != ambiguousCommitsBefore;
                if (ambiguous && row != null) {
                    log.warn("The commit's outcome is unknown (it may have been applied): invalidating {}", invalidation);
                }
                if ((status == STATUS_COMMITTED || ambiguous) && row != null) {
                    InvalidationLog.Appended committedRow = row;
                    relayOnceTheConnectionIsBack(() -> committed(committedRow, invalidation, !ambiguous));
                }
            } finally {
                TransactionSynchronizationManager.unbindResourceIfPossible(WritePath.this);
            }
        }
    }
}
