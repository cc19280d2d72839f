package dev.tandem.db;

import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * V6 on a database that has groups: each group's version moves up by one (none is left at 0, which
 * DeleteGroup reads as "whatever the version"), and the database takes a new identity, so that every
 * instance flushes the cache that holds the old versions. A database of its own, migrated to V5,
 * given two groups, then migrated to the end.
 */
class GroupVersionMigrationTest {

    private static final String DATABASE = System.getProperty("tandem.test.db-name", "tandem_test") + "_v6";
    private final TestDatabase database = new TestDatabase(LocalServers.shared().mariadbPort, DATABASE);

    @AfterEach
    void dropDatabase() throws SQLException {
        // through a connection that creates it when missing: DROP needs a database to connect to
        try (Connection connection = DriverManager.getConnection(url(), "tandem", "tandem");
             Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + DATABASE);
        }
    }

    @Test
    void everyGroupsVersionMovesUpByOneAndTheCacheIsToldTheDatabaseChanged() throws SQLException {
        dropDatabase();
        flyway("5").migrate();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO users (id, name, email, created_at) VALUES (1, 'Owner', 'o@example.test', NOW())");
            statement.execute("INSERT INTO study_groups (id, name, subject, description, capacity, owner_id, version, created_at) "
                    + "VALUES (1, 'Never changed', 'history', '', 10, 1, 0, NOW()), (2, 'Changed', 'history', '', 10, 1, 4, NOW())");
        }
        String identityBefore = database.value("SELECT identity FROM cache_database");

        flyway(null).migrate();

        assertThat(database.column("SELECT version FROM study_groups ORDER BY id")).containsExactly("1", "5");
        assertThat(database.value("SELECT identity FROM cache_database")).isNotEqualTo(identityBefore);
    }

    private static String url() {
        return "jdbc:mysql://127.0.0.1:" + LocalServers.shared().mariadbPort + "/" + DATABASE
                + "?connectionTimeZone=UTC&useSSL=false&allowPublicKeyRetrieval=true&createDatabaseIfNotExist=true";
    }

    private Flyway flyway(String target) {
        var configuration = Flyway.configure()
                .dataSource(url(), "tandem", "tandem")
                .locations("classpath:db/migration");
        return (target == null ? configuration : configuration.target(target)).load();
    }
}
