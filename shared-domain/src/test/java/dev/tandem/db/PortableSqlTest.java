package dev.tandem.db;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL of the shared domain (its Java sources and Flyway migrations) runs on MariaDB 10.11 here
 * and on MySQL 8.0/8.4 in production, and MySQL cannot run in these tests: what one server accepts
 * and the other rejects or deprecates is pinned here, in the form that works on both.
 * <ul>
 * <li>{@code VALUES(col)} in {@code ON DUPLICATE KEY UPDATE}: deprecated since MySQL 8.0.20 (a
 * warning 1287 on each statement, and "subject to removal", WL#13325); its replacement, a row alias
 * ({@code VALUES (...) AS new ... new.col}, 8.0.19), is a syntax error on MariaDB. Portable: bind
 * the value again.</li>
 * </ul>
 */
class PortableSqlTest {

    private static final Pattern VALUES_IN_UPSERT =
            Pattern.compile("ON\\s+DUPLICATE\\s+KEY\\s+UPDATE[^;\"]*?\\bVALUES\\s*\\(", Pattern.CASE_INSENSITIVE);

    @Test
    void noUpsertReadsTheNewRowThroughValues() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path file : sqlSources()) {
            // Java concatenates its SQL: the pieces are joined as the statement is, quotes dropped.
            String text = Files.readString(file).replaceAll("\"\\s*\\+\\s*\"", "");
            Matcher m = VALUES_IN_UPSERT.matcher(text);
            while (m.find()) {
                found.add(file.getFileName() + ": " + m.group());
            }
        }
        assertThat(found).as("ON DUPLICATE KEY UPDATE ... VALUES(col), deprecated by MySQL 8.0.20").isEmpty();
    }

    private static List<Path> sqlSources() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String root : List.of("src/main/java", "src/main/resources/db/migration")) {
            try (Stream<Path> walk = Files.walk(Path.of(root))) {
                walk.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".sql")).forEach(files::add);
            }
        }
        assertThat(files).as("the module's sources (the test runs in shared-domain)").hasSizeGreaterThan(50);
        return files;
    }
}
