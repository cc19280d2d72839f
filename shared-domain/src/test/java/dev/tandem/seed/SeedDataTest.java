package dev.tandem.seed;

import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@UseTestDatabase
class SeedDataTest {

    @Autowired SeedData seed;
    @Autowired JdbcClient jdbc;

    @Test
    void scaleMultipliesEveryCount() {
        seed.reset(2);
        assertThat(counts()).containsExactly(200L, 100L, 400L, 1000L);
        assertThat(jdbc.sql("SELECT COUNT(DISTINCT subject) FROM study_groups").query(Long.class).single()).isEqualTo(10);
    }

    @Test
    void sameScaleGivesTheSameRows() {
        seed.reset(1);
        String first = fingerprint();
        seed.reset(1);
        assertThat(counts()).containsExactly(100L, 50L, 200L, 500L);
        assertThat(fingerprint()).isEqualTo(first);
    }

    private List<Long> counts() {
        return List.of("users", "study_groups", "study_sessions", "ratings").stream()
                .map(t -> jdbc.sql("SELECT COUNT(*) FROM " + t).query(Long.class).single()).toList();
    }

    private String fingerprint() {
        return jdbc.sql("""
                SELECT CONCAT_WS('|',
                  (SELECT SUM(CRC32(CONCAT(id, name, email))) FROM users),
                  (SELECT SUM(CRC32(CONCAT(id, name, subject, capacity, owner_id))) FROM study_groups),
                  (SELECT SUM(CRC32(CONCAT(group_id, user_id))) FROM group_members),
                  (SELECT SUM(CRC32(CONCAT(id, group_id, starts_at))) FROM study_sessions),
                  (SELECT SUM(CRC32(CONCAT(group_id, user_id, stars))) FROM ratings))
                """).query(String.class).single();
    }
}
