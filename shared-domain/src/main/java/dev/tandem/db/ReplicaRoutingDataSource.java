package dev.tandem.db;

import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.deadline.RequestDeadline;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application's DataSource when a read replica is configured ({@code tandem.db.replica.host}):
 * read-only transactions read the replica, everything else uses the primary, and no read ever sees
 * the database older than it was when the read began.
 *
 * <h2>What goes where</h2>
 * Spring's {@link LazyConnectionDataSourceProxy} hands out a connection handle and fetches a real
 * connection only at the first statement, by then knowing whether the transaction is read-only
 * ({@code @Transactional(readOnly = true)}: {@code GroupQueries}, Spring Data's finders behind
 * {@code UserService.get}). Read-only ones get their connection from the fenced replica below;
 * read-write transactions, statements outside a transaction, Flyway and the seed use the primary. A
 * read-only method called inside a write transaction joins it and stays on the primary (it must see
 * the transaction's own rows). Both pools are wrapped by {@link GuardedDataSource}, so request
 * deadlines hold on either; this router itself is not (each statement would be guarded twice).
 *
 * <h2>Consistency: every read is fenced at the primary's current position</h2>
 * A replica applies the primary's transactions in commit order, some time later (with parallel
 * replication too: MariaDB commits in order by default; MySQL needs
 * {@code replica_preserve_commit_order=ON}, its default since 8.0.27). Before a read
 * uses a replica connection, it asks the primary for its current GTID position (one round trip,
 * no table touched) and waits on the replica until that position is applied (at most
 * {@code tandem.db.replica.max-wait}, and at most half of what the request's deadline leaves, so
 * that the primary still has the other half to answer in); if the replica is further behind,
 * unreachable or fails, the read uses the primary instead. A replica read therefore sees the primary's state as of some moment
 * between the start of the read and the read itself: exactly what a read of the primary itself could
 * have seen. Hence:
 * <ul>
 * <li><b>Read-your-writes</b> for every client, on any instance and either wire, without tokens:
 * a write's response is sent after its commit, so any read the client starts afterwards is fenced at
 * a position that contains the write. (A consistency token — the writer's GTID returned to the
 * client and sent back — would spare the primary round trip but gives nothing to a client that does
 * not echo it, and it cannot protect the shared cache, below.)</li>
 * <li><b>Cache coherence</b>: the two-level cache fills from these reads. Its protocol (tombstones,
 * fills that lose against a later invalidation) is correct for a fill that reads the database at
 * any moment between the fill's cache lookup and its store; a fenced replica read is such a read
 * (the fence is taken after the lookup), so a fill never caches a value older than an invalidation
 * it has seen: no old value is re-cached from a lagging replica after a write.</li>
 * </ul>
 * The price is one tiny primary query per cache miss (not per request: hits touch no database) and,
 * while the replica lags by more than max-wait, that wait on each miss before the primary answers.
 * The heavy queries (joins, aggregates) run on the replica.
 *
 * <h2>Failure</h2>
 * A replica that is down or lagging degrades reads to the primary (counted, see {@link #reads()};
 * one that accepts connections but does not answer — a frozen host, a network that drops its
 * packets, where nothing is refused and TCP waits for minutes — counts as down once the fence has
 * waited max-wait plus the replica's connection timeout for its answer;
 * the {@code db} health check shows the replica's state but stays UP, since every request can
 * still be served). The primary being down fails reads as it does without a replica: a replica
 * read cannot be fenced without the primary, and an unfenced one could be stale.
 *
 * <h2>The breaker: a dead replica costs its timeout a few times, not on every miss</h2>
 * Finding the replica down takes time: Hikari waits its connection timeout for a connection to a
 * stopped server, and a frozen one is found out only by the fence's own bound. Paid on every cache
 * miss, that made a dead replica a second-long stall of every read for as long as it stayed down. A
 * Resilience4j {@link CircuitBreaker} ({@code tandem.db.replica.breaker.*}) judges each attempt to
 * reach the replica — its connection and the fence's answer, not the read after it: a failure is
 * the replica unavailable; an answer, "caught up" or "behind" alike, is a success (lag is normal and
 * is the fence's business). Once enough attempts failed it opens, and reads go to the primary at
 * once, without the primary's position query either (counted as skipped); after the open wait one
 * read tries the replica again (half-open, the others keep skipping it), and its answer closes the
 * breaker. The {@code db} health details and the {@code tandem.db.replica.breaker.state} gauge show
 * the state.
 * <p>
 * An attempt that a request's deadline ended is no verdict on the replica: the deadline, not the
 * replica, ran out (the wait for a replica connection, or a fence whose answer is slow, cut short;
 * a cancelled fence reads as a failed statement). Counted as failures, short-deadline clients would
 * open the breaker over a healthy, slow replica; ignored, they would never open it over a dead
 * one, and every one of their misses would keep failing. So such an attempt is left out of the
 * breaker's count and the replica is checked once more in the background under its own bounds
 * (no deadline, at most one check at a time); that check's outcome is what the breaker records.
 * A failure of the connection itself (SQL state class 08: the fence's own timeout on a frozen
 * replica, a refused connection) is the replica's, deadline or not.
 */
public class ReplicaRoutingDataSource extends LazyConnectionDataSourceProxy {

    private static final Logger log = LoggerFactory.getLogger(ReplicaRoutingDataSource.class);

    /**
     * How many read-only connections were served by each source, and why the primary when it was:
     * the replica behind, unavailable (tried and failed), or not tried at all (its breaker open).
     */
    public record Reads(long replica, long primaryReplicaBehind, long primaryReplicaUnavailable,
                        long primaryBreakerOpen) {
    }

    private final DataSource primary;
    private final DataSource replica;
    private final CircuitBreaker breaker;
    private final AtomicLong replicaReads = new AtomicLong();
    private final AtomicLong replicaBehind = new AtomicLong();
    private final AtomicLong replicaUnavailable = new AtomicLong();
    private final AtomicLong breakerOpen = new AtomicLong();

    /**
     * @param primary   the primary's (guarded) pool
     * @param replica   the replica's (guarded) pool
     * @param dialect   the GTID SQL of the database product
     * @param maxWait   how long a read waits for the replica to catch up
     * @param answerWithin how much longer than {@code maxWait} the fence waits for the replica to answer
     *                   at all before it takes the replica for unavailable
     * @param breaker   judges the attempts to reach the replica ({@link #breaker(ReplicaProperties.Breaker)})
     * @param autoCommit the pools' auto-commit default (so that the proxy need not borrow a
     *                   connection at start-up to find it out)
     */
    ReplicaRoutingDataSource(DataSource primary, DataSource replica, GtidDialect dialect, Duration maxWait,
                             Duration answerWithin, CircuitBreaker breaker, boolean autoCommit) {
        this.primary = primary;
        this.replica = replica;
        this.breaker = breaker;
        setTargetDataSource(primary);
        setReadOnlyDataSource(new FencedReplica(dialect, maxWait, maxWait.plus(answerWithin)));
        setDefaultAutoCommit(autoCommit);
        // MariaDB's and MySQL's default; only consulted when a transaction asks for an isolation level.
        setDefaultTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        afterPropertiesSet();
    }

    /** The breaker around the replica, as {@code tandem.db.replica.breaker.*} configures it. */
    static CircuitBreaker breaker(ReplicaProperties.Breaker settings) {
        return CircuitBreaker.of("tandem-db-replica", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(settings.window())
                .minimumNumberOfCalls(settings.minimumCalls())
                .failureRateThreshold(settings.failureRateThreshold())
                .waitDurationInOpenState(settings.openWait())
                // One read probes: against a replica still down it pays the timeout, and one answer
                // is enough to know it is back.
                .permittedNumberOfCallsInHalfOpenState(1)
                // Half-open by itself after the wait (as the cache's Redis breaker), so that health
                // and the gauge say a probe is due rather than OPEN until the next miss.
                .automaticTransitionFromOpenToHalfOpenEnabled(true)
                .build());
    }

    public DataSource primary() {
        return primary;
    }

    public DataSource replica() {
        return replica;
    }

    public CircuitBreaker breaker() {
        return breaker;
    }

    public Reads reads() {
        return new Reads(replicaReads.get(), replicaBehind.get(), replicaUnavailable.get(), breakerOpen.get());
    }

    /** The read-only side: a replica connection once the replica has applied the primary's position. */
    private final class FencedReplica extends AbstractDataSource {

        private final GtidDialect dialect;
        private final Duration maxWait;
        private final int fenceNetworkTimeoutMillis;
        private final AtomicBoolean checking = new AtomicBoolean();

        FencedReplica(GtidDialect dialect, Duration maxWait, Duration fenceNetworkTimeout) {
            this.dialect = dialect;
            this.maxWait = maxWait;
            this.fenceNetworkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, fenceNetworkTimeout.toMillis());
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (!breaker.tryAcquirePermission()) {
                breakerOpen.incrementAndGet();
                return readOnlyPrimary();
            }
            String position = primaryPosition();
            Connection connection;
            try {
                connection = attempt(position);
            } catch (DeadlineExceededException e) {
                throw e;
            } catch (SQLException e) {
                replicaUnavailable.incrementAndGet();
                log.debug("Replica unavailable, reading the primary: {}", e.toString());
                return readOnlyPrimary();
            }
            if (connection == null) {
                replicaBehind.incrementAndGet();
                return readOnlyPrimary();
            }
            replicaReads.incrementAndGet();
            return connection;
        }

        /** The primary's current position; a failure gives the breaker's permission back (no attempt was made). */
        private String primaryPosition() throws SQLException {
            try (Connection connection = primary.getConnection()) {
                return dialect.primaryPosition(connection);
            } catch (SQLException | RuntimeException | Error e) {
                breaker.releasePermission();
                throw e;
            }
        }

        /**
         * One attempt to reach the replica, with the breaker's permission, its outcome recorded (see
         * the class comment): a replica connection fenced at {@code position}, null when the replica
         * is behind it, or the failure. One a request's deadline ended is thrown as
         * {@link DeadlineExceededException}, unrecorded, and the replica is checked in the background.
         */
        private Connection attempt(String position) throws SQLException {
            long started = System.nanoTime();
            try {
                Connection connection = fenced(position);
                breaker.onSuccess(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                return connection;
            } catch (SQLException e) {
                if (endedByDeadline(e)) {
                    breaker.releasePermission();
                    checkInBackground();
                    throw e instanceof DeadlineExceededException deadline ? deadline
                            : new DeadlineExceededException("the request's deadline passed while the replica was asked", e);
                }
                breaker.onError(System.nanoTime() - started, TimeUnit.NANOSECONDS, e);
                throw e;
            } catch (RuntimeException | Error e) {
                breaker.onError(System.nanoTime() - started, TimeUnit.NANOSECONDS, e);
                throw e;
            }
        }

        /** A replica connection that has applied {@code position}; null (and no connection) when it is behind. */
        private Connection fenced(String position) throws SQLException {
            Connection connection = replica.getConnection();
            try {
                if (awaitApplied(connection, position)) {
                    return connection;
                }
            } catch (SQLException | RuntimeException | Error e) {
                connection.close();
                throw e;
            }
            connection.close();
            return null;
        }

        /**
         * Whether the request's deadline, rather than the replica, ended the attempt: the deadline
         * refused or interrupted it, or it has passed and the failure is not one of the connection
         * (a fence the deadline cancelled fails as a statement, SQL state 70100 on MariaDB).
         */
        private static boolean endedByDeadline(SQLException failure) {
            if (failure instanceof DeadlineExceededException) {
                return true;
            }
            boolean connectionFailure = failure.getSQLState() != null && failure.getSQLState().startsWith("08");
            return !connectionFailure && RequestDeadline.current().map(RequestDeadline::expired).orElse(false);
        }

        /**
         * One attempt on a thread of its own, bound to no request's deadline, so that the replica's
         * own bounds decide its outcome; skipped while another such check runs, or when the breaker
         * lets no attempt through.
         */
        private void checkInBackground() {
            if (!checking.compareAndSet(false, true)) {
                return;
            }
            Thread.ofVirtual().name("tandem-replica-check").start(() -> {
                try {
                    if (!breaker.tryAcquirePermission()) {
                        return;
                    }
                    Connection connection = attempt(primaryPosition());
                    if (connection != null) {
                        connection.close();
                    }
                } catch (Exception e) {
                    log.debug("Replica check after a request's deadline: {}", e.toString());
                } finally {
                    checking.set(false);
                }
            });
        }

        /**
         * The fence on {@code replica} under a socket timeout of its own: a replica that stopped
         * answering without closing its connections (SIGSTOP, a dead host) left the wait blocked in a
         * socket read until the request's deadline aborted it, failing the read instead of moving it
         * to the primary, and a read without a deadline (a refresh ahead) for as long as TCP kept the
         * connection. Connector/J closes a connection whose read timed out, so the pool drops it.
         * The read after the fence runs without the timeout (heavy queries may take long; the
         * request deadline bounds them).
         */
        private boolean awaitApplied(Connection connection, String position) throws SQLException {
            int before = connection.getNetworkTimeout();
            // JDBC lets a driver apply the timeout on the executor it is given: a direct one, so it is set before the wait.
            connection.setNetworkTimeout(Runnable::run, fenceNetworkTimeoutMillis);
            boolean applied = dialect.awaitApplied(connection, position, fenceWait());
            connection.setNetworkTimeout(Runnable::run, before);
            return applied;
        }

        /**
         * How long this read waits for the replica to catch up: {@code maxWait}, cut to half of what
         * the request's deadline leaves. A lagging replica otherwise held a read whose deadline was
         * shorter than {@code maxWait} until the deadline cancelled the wait, and the read failed
         * although the primary could have answered it in time. Half, because the primary's read
         * after a fence that found the replica behind needs time too, and nothing tells in advance
         * how much. Never zero: MySQL's wait takes 0 for "no limit".
         */
        private Duration fenceWait() {
            return RequestDeadline.current()
                    .map(deadline -> Duration.ofNanos(Math.max(1, deadline.remaining().toNanos() / 2)))
                    .filter(half -> half.compareTo(maxWait) < 0)
                    .orElse(maxWait);
        }

        /**
         * A primary connection marked read-only as a read-only transaction's would be without a
         * replica (the proxy marks only connections of its target, not of the read-only source).
         */
        private Connection readOnlyPrimary() throws SQLException {
            Connection connection = primary.getConnection();
            try {
                connection.setReadOnly(true);
                return connection;
            } catch (SQLException e) {
                connection.close();
                throw e;
            }
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLException("the replica's credentials come from tandem.db.replica.*");
        }
    }
}
