package dev.tandem.db;

import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.deadline.RequestDeadline;
import dev.tandem.deadline.RequestDeadlines;
import com.zaxxer.hikari.HikariDataSource;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.HeldCarriers;
import dev.tandem.testsupport.RowLock;
import dev.tandem.testsupport.StallingProxy;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The JDBC side of a request deadline, on the application's own (proxied) pool against the real
 * MariaDB, with a pool of one connection so that waiting for a connection can be provoked: the wait
 * ends at the deadline (not at Hikari's longer connection-timeout), and no statement or commit
 * starts once the deadline has passed. The service tests show statements cancelled mid-way.
 */
@SpringBootTest(properties = "tandem.db.pool-size=1")
@UseTestDatabase
class DeadlineJdbcTest {

    @Autowired RequestDeadlines deadlines;
    @Autowired GuardedDataSource guard;
    @Autowired Environment environment;
    DataSource dataSource;

    /**
     * The primary's pool. With a read replica the application's DataSource is the router, whose
     * connections are fetched lazily at the first statement, so holding one would not hold the pool's.
     */
    @Autowired
    void pool(DataSource applicationDataSource) {
        this.dataSource = applicationDataSource instanceof ReplicaRoutingDataSource routing
                ? routing.primary() : applicationDataSource;
    }

    @Test
    void waitingForAPooledConnectionEndsAtTheDeadline() throws Exception {
        try (Connection only = dataSource.getConnection()) {
            Throwable thrown;
            try (RequestDeadline deadline = deadlines.open(Duration.ofMillis(300));
                 RequestDeadline.Binding ignored = deadline.bind()) {
                thrown = catchThrowable(() -> dataSource.getConnection().close());
            }

            // Hikari's own timeout (3 s) would have thrown SQLTransientConnectionException instead.
            assertThat(thrown).isInstanceOf(DeadlineExceededException.class);
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt does not leak").isFalse();
            try (Statement statement = only.createStatement()) {
                assertThat(statement.execute("SELECT 1")).as("the pool's connection is unharmed").isTrue();
            }
        }
    }

    @Test
    void noStatementStartsOnceTheDeadlineHasPassed() throws Exception {
        try (Connection connection = dataSource.getConnection();
             RequestDeadline deadline = deadlines.open(Duration.ZERO);
             RequestDeadline.Binding ignored = deadline.bind();
             Statement statement = connection.createStatement()) {
            assertThat(catchThrowable(() -> statement.executeQuery("SELECT 1"))).isInstanceOf(DeadlineExceededException.class);
        }
    }

    @Test
    void noCommitOnceTheDeadlineHasPassed() throws Exception {
        String email = "deadline-" + UUID.randomUUID() + "@example.test";
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            // Long enough for the INSERT to start and finish before it on a loaded machine (it
            // must: only the commit is to meet the passed deadline); the test waits for it anyway.
            try (RequestDeadline deadline = deadlines.open(Duration.ofSeconds(2));
                 RequestDeadline.Binding ignored = deadline.bind()) {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO users (name, email, created_at) VALUES ('Late', ?, NOW(6))")) {
                    insert.setString(1, email);
                    insert.executeUpdate();
                }
                Await.until("the deadline passed", Duration.ofSeconds(30), deadline::expired);
                assertThat(catchThrowable(connection::commit)).isInstanceOf(DeadlineExceededException.class);
            }
            connection.rollback();
            connection.setAutoCommit(true);
            try (PreparedStatement query = connection.prepareStatement("SELECT COUNT(*) FROM users WHERE email = ?")) {
                query.setString(1, email);
                try (ResultSet count = query.executeQuery()) {
                    count.next();
                    assertThat(count.getInt(1)).as("the insert was not committed").isZero();
                }
            }
        }
    }

    /**
     * A statement still running at its deadline is cancelled while every carrier thread is held, as
     * on an instance whose requests saturate its CPU: the cancel (a KILL QUERY over a connection of
     * its own, then the connection's abort) runs on a platform thread. On a virtual thread it waited
     * for a carrier as long as the hold lasted, and the statement, here waiting for a row lock, went
     * on past its deadline. The request itself runs on a platform thread, so the hold stops nothing
     * but what runs on virtual threads; the 30-s wait bounds a hang, not a speed.
     */
    @Test
    void aStatementIsCancelledAtItsDeadlineWhileEveryCarrierIsHeld() throws Exception {
        ExecutorService request = Executors.newSingleThreadExecutor();
        try (HeldCarriers ignored = HeldCarriers.hold();
             RowLock lock = RowLock.studyGroup(environment.getRequiredProperty("spring.datasource.url"),
                     environment.getProperty("spring.datasource.username"),
                     environment.getProperty("spring.datasource.password"), 1);
             Connection connection = dataSource.getConnection()) {
            Future<Throwable> outcome = request.submit(() -> {
                try (RequestDeadline deadline = deadlines.open(Duration.ofSeconds(1));
                     RequestDeadline.Binding bound = deadline.bind();
                     Statement statement = connection.createStatement()) {
                    return catchThrowable(() -> statement.executeQuery("SELECT id FROM study_groups WHERE id = 1 FOR UPDATE"));
                }
            });
            assertThat(lock.awaitLockingReadOfStudyGroups(Duration.ofSeconds(30))).as("the statement waits for the lock").isTrue();
            // The driver's own exception for a statement its KILL QUERY ended, which it words as
            // cancelled or interrupted by when the kill lands (the services map either by the expired
            // deadline); the lock is held far longer than this wait, so nothing else ends it.
            assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(SQLException.class)
                    .hasMessageMatching("(?s).*(cancelled|interrupted).*");
        } finally {
            request.shutdownNow();
        }
    }

    @Test
    void withoutABoundDeadlineNothingIsHeldBack() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            assertThat(statement.execute("SELECT 1")).isTrue();
        }
        assertThat(RequestDeadline.current()).isEmpty();
    }

    /** What a test does on a connection to the test database through {@code proxy}. */
    @FunctionalInterface
    private interface ThroughAProxy {
        void run(StallingProxy proxy, Connection connection, ExecutorService requests) throws Exception;
    }

    /**
     * Runs {@code test} on the one connection of a pool of its own, guarded as the application's
     * pool is, to the test database through a StallingProxy, with an executor for its requests.
     */
    private void throughAProxy(String name, ThroughAProxy test) throws Exception {
        int databasePort = environment.getRequiredProperty("tandem.db.port", Integer.class);
        ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
        StallingProxy proxy = new StallingProxy(databasePort);
        HikariDataSource pool = new HikariDataSource();
        Connection connection = null;
        try {
            pool.setPoolName(name);
            pool.setJdbcUrl(environment.getRequiredProperty("spring.datasource.url")
                    .replace(":" + databasePort + "/", ":" + proxy.port() + "/"));
            pool.setUsername(environment.getProperty("spring.datasource.username"));
            pool.setPassword(environment.getProperty("spring.datasource.password"));
            pool.setMaximumPoolSize(1);
            connection = ((DataSource) guard.postProcessAfterInitialization(pool, name)).getConnection();
            test.run(proxy, connection, requests);
        } finally {
            // First: a read still blocked (the failure) ends when the proxy drops its sockets; the
            // connection's close would otherwise wait for it.
            proxy.close();
            closeDeadConnection(connection);
            pool.close();
            requests.shutdownNow();
        }
    }

    /**
     * A database that stops answering in the middle of a statement (a network partition, a frozen
     * host, a moved address): the KILL QUERY that the deadline sends cannot reach it either, and
     * without a socket timeout the statement's read would wait for hours (TCP keepalive), holding
     * the request's thread and a pooled connection. At the deadline the statement must end anyway.
     * The wait below is a bound on a hang, not a speed: a statement still blocked after 30 s is the
     * failure.
     */
    @Test
    void aStatementOnADatabaseThatStopsAnsweringEndsAfterTheDeadline() throws Exception {
        throughAProxy("deadline-stalled-path", (proxy, stalled, requests) -> {
            proxy.stall();
            CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
                try (RequestDeadline deadline = deadlines.open(Duration.ofMillis(500));
                     RequestDeadline.Binding ignored = deadline.bind();
                     Statement statement = stalled.createStatement()) {
                    statement.executeQuery("SELECT 1");
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            }, requests);

            Throwable thrown = catchThrowable(() -> outcome.get(30, TimeUnit.SECONDS));
            assertThat(thrown).as("the statement still blocked 30 s after its 500 ms deadline").isNull();
            assertThat(outcome.join()).as("the statement failed").isInstanceOf(SQLException.class);
        });
    }

    /**
     * The same for a commit: it is sent, and the database stops answering before it replies. At the
     * deadline the commit must end, reported as what it is: sent, outcome unknown.
     */
    @Test
    void aCommitToADatabaseThatStopsAnsweringEndsAfterTheDeadlineWithItsOutcomeUnknown() throws Exception {
        throughAProxy("deadline-stalled-commit", (proxy, stalled, requests) -> {
            String email = "stalled-commit-" + UUID.randomUUID() + "@example.test";
            CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
                try (RequestDeadline deadline = deadlines.open(Duration.ofSeconds(5));
                     RequestDeadline.Binding ignored = deadline.bind()) {
                    stalled.setAutoCommit(false);
                    try (PreparedStatement insert = stalled.prepareStatement(
                            "INSERT INTO users (name, email, created_at) VALUES ('Stalled', ?, NOW(6))")) {
                        insert.setString(1, email);
                        insert.executeUpdate();
                    }
                    proxy.stall();
                    stalled.commit();
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            }, requests);

            Throwable thrown = catchThrowable(() -> outcome.get(60, TimeUnit.SECONDS));
            assertThat(thrown).as("the commit still blocked 60 s after it was sent (deadline 5 s)").isNull();
            assertThat(outcome.join()).as("the commit failed, its outcome unknown")
                    .isInstanceOf(CommitOutcomeUnknownException.class);
        });
    }

    /**
     * The same for a call on the connection that is neither a statement nor a commit: a transaction's
     * begin (Connector/J sends {@code SET autocommit=0} for setAutoCommit(false), the first thing a
     * request's transaction does), a rollback, a session setting. Failed before: only statements,
     * commits and the wait for a connection were held to the deadline, and this call waited on the
     * unanswered read for as long as the socket lived.
     */
    @Test
    void aTransactionBeginOnADatabaseThatStopsAnsweringEndsAfterTheDeadline() throws Exception {
        throughAProxy("deadline-stalled-begin", (proxy, stalled, requests) -> {
            proxy.stall();
            CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
                try (RequestDeadline deadline = deadlines.open(Duration.ofMillis(500));
                     RequestDeadline.Binding ignored = deadline.bind()) {
                    stalled.setAutoCommit(false);
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            }, requests);

            Throwable thrown = catchThrowable(() -> outcome.get(30, TimeUnit.SECONDS));
            assertThat(thrown).as("setAutoCommit(false) still blocked 30 s after its 500 ms deadline").isNull();
            assertThat(outcome.join()).as("the call failed").isInstanceOf(SQLException.class);
        });
    }

    /** Closes a connection whose server went away: Hikari's rollback on close fails then, as expected. */
    private static void closeDeadConnection(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException expected) {
                // the proxy, and with it the connection's socket, is closed
            }
        }
    }
}
