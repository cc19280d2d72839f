package dev.tandem.db;

/**
 * How many commits on the current thread have failed after they were sent
 * ({@link CommitOutcomeUnknownException}): each may or may not have been applied.
 *
 * <p>Code that must act on every commit that may have been applied cannot learn this from Spring:
 * when the connection dies during the COMMIT, {@code JpaTransactionManager} rolls back on the dead
 * connection, which "succeeds", and reports the transaction to its synchronizations as rolled back
 * ({@code STATUS_ROLLED_BACK}, not {@code STATUS_UNKNOWN}). So such code notes {@link #count()}
 * before the commit (in {@code beforeCompletion}) and compares afterwards. A count per thread,
 * because a transaction and its commit run on one thread.
 */
public final class AmbiguousCommits {

    private static final ThreadLocal<long[]> COUNT = ThreadLocal.withInitial(() -> new long[1]);

    private AmbiguousCommits() {
    }

    /** Commits on this thread whose outcome was unknown, since the thread started. */
    public static long count() {
        return COUNT.get()[0];
    }

    static void record() {
        COUNT.get()[0]++;
    }
}
