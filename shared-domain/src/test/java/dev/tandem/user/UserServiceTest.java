package dev.tandem.user;

import dev.tandem.error.DataAccessFailures;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.error.FieldViolation;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.Concurrently;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@SpringBootTest
@UseTestDatabase
class UserServiceTest {

    @Autowired UserService users;
    @Autowired SeedData seed;
    @Autowired DataSource dataSource;
    @Autowired DataAccessFailures dataAccessFailures;

    @BeforeEach
    void freshData() {
        seed.reset(1);
    }

    @Test
    void createdUserReadsBackExactly() {
        UserView created = users.create(new NewUser("Ada", "ada@example.test"));
        assertThat(users.get(created.id())).isEqualTo(created);
        assertThat(created.id()).isEqualTo(101);
    }

    @Test
    void duplicateEmailIsAlreadyExists() {
        users.create(new NewUser("Ada", "ada@example.test"));
        assertThatThrownBy(() -> users.create(new NewUser("Other Ada", "ada@example.test")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
    }

    @Test
    void invalidUserNamesItsFields() {
        assertThatThrownBy(() -> users.create(new NewUser(" ", "not-an-email")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .extracting(FieldViolation::field).containsExactly("email", "name"));
        assertThatThrownBy(() -> users.get(12345))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    /**
     * InnoDB's textbook deadlock (MySQL manual, "Locks Set by Different SQL Statements"): while one
     * transaction's insert of an e-mail is uncommitted, two more inserts of it wait for a shared lock
     * on the key; when the first rolls back (its deadline passed, its client went away) both get the
     * shared lock, both then need the exclusive one, and InnoDB kills one of them. That one's request
     * changed nothing and lost a race: a conflict (ABORTED, 409), not an unexplained failure (500).
     */
    @Test
    void aCreateThatLosesADeadlockOverAnEmailIsAborted() throws Exception {
        String email = "deadlock@example.test";
        List<Object> outcomes;
        try (Connection first = dataSource.getConnection()) {
            first.setAutoCommit(false);
            try (PreparedStatement insert = first.prepareStatement(
                    "INSERT INTO users (name, email, created_at) VALUES ('First', ?, ?)")) {
                insert.setString(1, email);
                insert.setTimestamp(2, Timestamp.from(Instant.parse("2026-01-01T00:00:00Z")));
                insert.executeUpdate();
            }
            Callable<Object> create = () -> users.create(new NewUser("Racer", email));
            CompletableFuture<List<Object>> racers = CompletableFuture.supplyAsync(() -> {
                try {
                    return Concurrently.run(List.of(create, create));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("both creates wait on the uncommitted e-mail", Duration.ofSeconds(30),
                    () -> insertsIntoUsersWaiting(first) == 2);
            first.rollback();
            outcomes = racers.get();
        }

        assertThat(outcomes).filteredOn(UserView.class::isInstance).as("the create InnoDB let through").hasSize(1);
        Object loser = outcomes.stream().filter(o -> !(o instanceof UserView)).findFirst().orElseThrow();
        assertThat(loser).isInstanceOf(RuntimeException.class);
        DomainException answered = loser instanceof DomainException domain ? domain
                : dataAccessFailures.classify((Throwable) loser).orElseThrow(() ->
                        new AssertionError("answered as an unexpected failure (500/INTERNAL)", (Throwable) loser));
        assertThat(answered.code()).as(answered.getMessage()).isIn(ErrorCode.ABORTED, ErrorCode.ALREADY_EXISTS);
    }

    private static int insertsIntoUsersWaiting(Connection connection) {
        try (PreparedStatement query = connection.prepareStatement("""
                SELECT COUNT(*) FROM information_schema.processlist
                WHERE id <> CONNECTION_ID() AND db = DATABASE() AND command = 'Query'
                  AND LOWER(info) LIKE 'insert into users%'""");
             ResultSet count = query.executeQuery()) {
            count.next();
            return count.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the process list", e);
        }
    }
}
