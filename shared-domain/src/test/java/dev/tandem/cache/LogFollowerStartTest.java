package dev.tandem.cache;

import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance that starts on a log whose older rows were purged follows it
 * at once: the purged numbers below the first row it reads are not holes to wait for.
 */
class LogFollowerStartTest {

    @Test
    void aNewInstanceReachesTheNewestRowWithoutWaitingForPurgedNumbersBelowIt() {
        Instance writer = Instance.reference();
        writer.cache.flushAll("test-log-start");
        writer.cache.flushAll("test-log-start");
        long newest = writer.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        // As the retention leaves it: every row below the newest purged, and that one old. (Numbers
        // are not moved on by millions here, as on a long-lived log: the running instances of the
        // other tests would then wait for all of them as holes, which is right for them.)
        writer.jdbc.sql("DELETE FROM cache_invalidations WHERE seq < ?").param(newest).update();
        writer.jdbc.sql("UPDATE cache_invalidations SET created_at = created_at - INTERVAL 1 HOUR").update();

        Instance fresh = Instance.named("fresh-" + System.nanoTime(), CacheMode.HYBRID);

        // Well within tandem.cache.log.hole-timeout (30 s), after which holes are given up anyway.
        Await.until("the new instance's log position to reach the newest row", Duration.ofSeconds(10),
                () -> fresh.cache.logPosition() >= newest);
        assertThat(fresh.cache.follower().holes()).isZero();
        fresh.close();
    }
}
