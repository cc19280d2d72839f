package dev.tandem.cache;

import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance that starts on a log whose numbers are far along (rows purged for weeks) follows it
 * at once: the purged numbers below the first row it reads are not holes to wait for.
 */
class LogFollowerStartTest {

    @Test
    void aNewInstanceOnALongLivedLogReachesItsNewestRowWithoutWaitingForPurgedNumbers() {
        Instance writer = Instance.reference();
        long before = writer.jdbc.sql("SELECT COALESCE(MAX(seq), 0) FROM cache_invalidations").query(Long.class).single();
        // As after a long life: millions of numbers used and purged, the newest row kept.
        writer.jdbc.sql("ALTER TABLE cache_invalidations AUTO_INCREMENT = " + (before + 5_000_000)).update();
        writer.cache.flushAll("test-long-lived-log");
        long newest = writer.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        writer.jdbc.sql("DELETE FROM cache_invalidations WHERE seq < ?").param(newest).update();
        writer.jdbc.sql("UPDATE cache_invalidations SET created_at = created_at - INTERVAL 1 HOUR").update();

        Instance fresh = Instance.named("fresh-" + System.nanoTime(), CacheMode.HYBRID);

        // Well within tandem.cache.log.hole-timeout (30 s), after which holes are given up anyway.
        Await.until("the new instance's log position to reach the newest row", Duration.ofSeconds(10),
                () -> fresh.cache.logPosition() >= newest);
        assertThat(fresh.cache.follower().holes()).isZero();
    }
}
