package dev.tandem.db;

import dev.tandem.deadline.DeadlineExceededException;
import dev.tandem.deadline.RequestDeadline;
import dev.tandem.deadline.RequestDeadlines;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

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

    @Test
    void withoutABoundDeadlineNothingIsHeldBack() throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            assertThat(statement.execute("SELECT 1")).isTrue();
        }
        assertThat(RequestDeadline.current()).isEmpty();
    }
}
