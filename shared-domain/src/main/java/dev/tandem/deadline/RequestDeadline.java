package dev.tandem.deadline;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The time one request may still take, and the way to stop its SQL when that time is up or the
 * client gives up. A protocol module opens one per request ({@link RequestDeadlines#open}), binds
 * it to the thread that runs the request's domain code ({@link #bind()}), and closes it when the
 * request ends. Every JDBC statement run on a bound thread is registered here while it runs ({@link dev.tandem.db.DeadlineJdbcListener}); when the deadline
 * passes, or {@link #cancel()} is called, each running statement is cancelled (Connector/J sends
 * KILL QUERY) and a thread waiting for a pooled connection, or for another request's cache load
 * ({@link #await}), is interrupted. A statement that would
 * start afterwards is refused, so the transaction rolls back and nothing is half-applied. A
 * statement that has not ended {@link #ABORT_AFTER} after its cancellation has its connection
 * aborted (see {@link #cancel()}).
 *
 * <p>The expiry is scheduled lazily, when the first statement starts: a request answered from the
 * cache costs no timer.
 */
public final class RequestDeadline implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RequestDeadline.class);
    private static final ThreadLocal<RequestDeadline> CURRENT = new ThreadLocal<>();

    /**
     * How long a cancelled statement may take to end before its connection is aborted. A KILL QUERY
     * ends a statement within milliseconds when it arrives; this leaves room for a slow KILL (it
     * opens a connection of its own) before a healthy connection is given up.
     */
    static final Duration ABORT_AFTER = Duration.ofSeconds(2);

    private final long deadlineNanos;
    private final ScheduledExecutorService timer;
    private final Executor cancels;

    // Guarded by this: what runs now, so that the expiry can stop it.
    private final Set<Statement> running = new HashSet<>();
    private final Set<Connection> committing = new HashSet<>();
    private final Set<Connection> talking = new HashSet<>(); // other calls that wait on the database
    private Thread waiting; // for a pooled connection or for another request's work
    private boolean interruptedWait;
    private ScheduledFuture<?> expiry;
    private boolean cancelled;
    private boolean closed;

    RequestDeadline(long deadlineNanos, ScheduledExecutorService timer, Executor cancels) {
        this.deadlineNanos = deadlineNanos;
        this.timer = timer;
        this.cancels = cancels;
    }

    /** The deadline bound to this thread, if the thread is serving a request. */
    public static Optional<RequestDeadline> current() {
        return Optional.ofNullable(CURRENT.get());
    }

    /** Binds this deadline to the calling thread until the returned binding is closed. */
    public Binding bind() {
        RequestDeadline previous = CURRENT.get();
        CURRENT.set(this);
        return () -> {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        };
    }

    /** The deadline has passed or the request was cancelled: no more SQL for it. */
    public synchronized boolean expired() {
        return cancelled || deadlineNanos - System.nanoTime() <= 0;
    }

    /** The time left until the deadline; zero once it has passed (a cancelled request may still have some). */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    /** Throws DEADLINE_EXCEEDED if the request may not start (more) work. */
    public void throwIfExpired() {
        if (expired()) {
            throw exceeded();
        }
    }

    private synchronized DomainException exceeded() {
        return new DomainException(ErrorCode.DEADLINE_EXCEEDED, cancelled
                ? "the request was cancelled" : "the request's deadline has passed");
    }

    /**
     * {@code pending}'s result: work of another request that this one needs too (a cache load of the
     * same key), awaited no longer than this deadline. When the deadline passes, or the request is
     * cancelled, the wait ends with DEADLINE_EXCEEDED and the other request's work goes on without
     * this one. Why: that work runs under the other request's deadline, which may be far later (or,
     * with MySQL down, until the pool gives up), and this client asked for an answer sooner.
     * A failure of {@code pending} is thrown as {@link CompletableFuture#join()} throws it.
     */
    public <T> T await(CompletableFuture<T> pending) {
        if (pending.isDone()) {
            return pending.join();
        }
        // The same bookkeeping as a wait for a pooled connection: cancel() interrupts the waiter.
        if (!acquisitionStarting()) {
            throw exceeded();
        }
        boolean interrupted = false;
        try {
            return pending.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new CompletionException(e.getCause());
        } catch (TimeoutException e) {
            throw exceeded();
        } catch (InterruptedException e) {
            interrupted = true;
            throw exceeded();
        } finally {
            if (!acquisitionEnded() && interrupted) {
                Thread.currentThread().interrupt(); // not cancel()'s interrupt: somebody else's, kept
            }
        }
    }

    /**
     * The client gave up (gRPC cancellation): stop whatever SQL runs now and refuse more. Also what
     * the scheduled expiry does.
     */
    public void cancel() {
        Set<Statement> toCancel;
        Set<Connection> commits;
        Set<Connection> calls;
        synchronized (this) {
            if (closed) {
                return;
            }
            cancelled = true;
            toCancel = Set.copyOf(running);
            commits = Set.copyOf(committing);
            calls = Set.copyOf(talking);
            if (waiting != null) {
                interruptedWait = true;
                waiting.interrupt();
            }
        }
        // Statement.cancel opens a connection of its own to send KILL QUERY: never on the timer thread.
        for (Statement statement : toCancel) {
            cancels.execute(() -> {
                try {
                    statement.cancel();
                } catch (Exception e) {
                    log.debug("Could not cancel a statement at its request's deadline", e);
                }
            });
            // The KILL QUERY goes to the same server by another connection: when the server, or the
            // path to it, has stopped answering (a partition, a frozen host), it never arrives, and
            // the statement's own read has no timeout (none is set: it would cap every statement,
            // Flyway's too), so it would wait for hours holding this request's thread and a pooled
            // connection. Aborting the connection closes its socket: the read fails at once, the
            // request gets its error and Hikari discards the connection.
            abortLater(running, statement, "statement", statement::getConnection);
        }
        // A commit cannot be killed, and it waits on the same unanswered read; once sent it may have
        // been applied, and the JDBC listener reports its failure as an unknown outcome.
        for (Connection connection : commits) {
            abortLater(committing, connection, "commit", () -> connection);
        }
        for (Connection connection : calls) {
            abortLater(talking, connection, "database call", () -> connection);
        }
    }

    /** The connection a statement or commit runs on. */
    @FunctionalInterface
    private interface ConnectionOf {
        Connection get() throws Exception;
    }

    /** In {@link #ABORT_AFTER}, aborts the connection of {@code call} if it is still in {@code registry}. */
    private <T> void abortLater(Set<T> registry, T call, String what, ConnectionOf connection) {
        timer.schedule(() -> cancels.execute(() -> abortIfStillIn(registry, call, what, connection)),
                ABORT_AFTER.toNanos(), TimeUnit.NANOSECONDS);
    }

    // Under the lock, so that the statement or commit cannot end (and its request go on with the
    // connection) between the check and the abort; abort only hands the closing to the executor.
    private synchronized <T> void abortIfStillIn(Set<T> registry, T call, String what, ConnectionOf connection) {
        if (!registry.contains(call)) {
            return;
        }
        try {
            log.warn("A {} was still running {} after its request's deadline (the database does not answer): "
                    + "aborting its connection", what, ABORT_AFTER);
            connection.get().abort(cancels);
        } catch (Exception e) {
            log.debug("Could not abort the connection of a {} past its request's deadline", what, e);
        }
    }

    /**
     * Runs {@code action} once this deadline has passed, on a thread of its own (never the shared
     * timer's), unless the returned future is cancelled first. For a wire that must end a request by
     * itself at its deadline, whether or not any SQL runs: gRPC ends a call whose request has not
     * finished arriving (CallDeadlineInterceptor). Independent of {@link #close()} and of the SQL expiry.
     */
    public Future<?> atDeadline(Runnable action) {
        return timer.schedule(() -> cancels.execute(action), Math.max(0, deadlineNanos - System.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    // ---- what the JDBC listener reports -----------------------------------------------------------

    /** A statement starts on behalf of this request; false (and nothing registered) if it may not. */
    public synchronized boolean statementStarting(Statement statement) {
        if (expired() || closed) {
            return false;
        }
        running.add(statement);
        scheduleExpiry();
        return true;
    }

    public synchronized void statementEnded(Statement statement) {
        running.remove(statement);
    }

    /**
     * A commit starts on behalf of this request; false if the deadline has passed (too late to
     * answer success: the transaction is to roll back instead). Registered like a statement, so a
     * commit the database never answers is ended by {@link #cancel()}.
     */
    public synchronized boolean commitStarting(Connection connection) {
        if (expired()) {
            return false;
        }
        if (!closed) {
            committing.add(connection);
            scheduleExpiry();
        }
        return true;
    }

    public synchronized void commitEnded(Connection connection) {
        committing.remove(connection);
    }

    /**
     * A call on {@code connection} that waits on the database but is neither a statement nor a commit
     * starts: a transaction's begin or end (Connector/J sends {@code SET autocommit}), a rollback, a
     * session setting. Never refused (a rollback must run whatever the time), but held to the deadline
     * like a commit: one the database never answers has its connection aborted
     * {@link #ABORT_AFTER} after the deadline, or after its start when that is later.
     */
    public synchronized void callStarting(Connection connection) {
        if (closed) {
            return;
        }
        talking.add(connection);
        if (cancelled) {
            abortLater(talking, connection, "database call", () -> connection);
        } else {
            scheduleExpiry();
        }
    }

    public synchronized void callEnded(Connection connection) {
        talking.remove(connection);
    }

    /** The calling thread starts waiting for a pooled connection; false if it may not. */
    public synchronized boolean acquisitionStarting() {
        if (expired() || closed) {
            return false;
        }
        waiting = Thread.currentThread();
        scheduleExpiry();
        return true;
    }

    /**
     * The wait for a connection ended. Returns whether the expiry interrupted it; the interrupt
     * flag that the expiry set is cleared, so it cannot hit anything else this thread does.
     */
    public boolean acquisitionEnded() {
        boolean interrupted;
        synchronized (this) {
            waiting = null;
            interrupted = interruptedWait;
            interruptedWait = false;
        }
        if (interrupted) {
            Thread.interrupted();
        }
        return interrupted;
    }

    private void scheduleExpiry() {
        if (expiry == null) {
            expiry = timer.schedule(this::cancel, Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    /** The request is over: the expiry is dropped and a late cancellation does nothing. */
    @Override
    public synchronized void close() {
        closed = true;
        if (expiry != null) {
            expiry.cancel(false);
        }
        running.clear();
        committing.clear();
        talking.clear();
    }

    /** Undoes one {@link #bind()}. */
    @FunctionalInterface
    public interface Binding extends AutoCloseable {
        @Override
        void close();
    }
}
