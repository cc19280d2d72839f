package dev.tandem.cache;

import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;

/**
 * A cache stopped and started again (Spring's test framework pauses an idle context and restarts
 * it when a test uses it again) follows the log again: its follower's connection is closed with the
 * bean, not when it stops.
 */
class CacheRestartTest {

    @Test
    void aStoppedAndRestartedCacheFollowsTheLogAgain() {
        Instance instance = Instance.named("restarted-" + System.nanoTime(), CacheMode.HYBRID);
        instance.cache.stop();
        instance.cache.start();

        instance.cache.flushAll("test-restart");
        long newest = instance.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();

        // The row read, not the position handed to watches, which may wait for holes below it.
        Await.until("the restarted follower to read the newest row", Duration.ofSeconds(20),
                () -> instance.cache.follower().highestSeen() >= newest);
        instance.close();
    }
}
