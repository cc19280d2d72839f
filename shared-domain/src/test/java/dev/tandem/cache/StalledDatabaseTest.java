package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.StallingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * MySQL that stops answering without refusing (a network path that stopped delivering, a server
 * paused, a half-open connection after a failover) is MySQL away as much as a stopped one: the
 * instance answers cached reads from L2 meanwhile, as during an outage, and is back to normal once
 * MySQL answers again. The log follower's statement on the silent connection used to wait for as
 * long as the kernel kept the connection (no socket timeout: hours), so its pass neither completed
 * nor failed; the instance then read neither L1 (not read through within the bound) nor L2 (only a
 * failing pass counts as MySQL away), and every cached read went to the silent MySQL too.
 */
class StalledDatabaseTest {

    @Test
    void anInstanceWhoseDatabaseStopsAnsweringServesCachedReadsFromL2AndRecovers() throws Exception {
        Instance reference = Instance.reference();
        int databasePort = reference.context.getEnvironment().getRequiredProperty("tandem.db.port", Integer.class);
        try (StallingProxy proxy = new StallingProxy(databasePort)) {
            Instance stalled = Instance.named("hybrid-stalled-db-" + System.nanoTime(), CacheMode.HYBRID,
                    List.of("--tandem.db.port=" + proxy.port()));
            try {
                stalled.resetData();
                stalled.awaitHealthy();
                GroupView cached = stalled.groups.get(1);
                assertThat(stalled.cache.l2().read(GroupCaches.GROUP, 1L).value).as("L2 holds the group").isEqualTo(cached);

                proxy.stall();
                Await.until("the instance to read L2 while MySQL does not answer (its follower waited on the silent "
                                + "connection?)", Duration.ofSeconds(60),
                        () -> !stalled.cache.l1Trusted() && stalled.cache.l2Readable());
                long l2Hits = stalled.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L2);
                assertThat(assertTimeoutPreemptively(Duration.ofSeconds(10), () -> stalled.groups.get(1),
                        "a cached read while MySQL does not answer")).isEqualTo(cached);
                assertThat(stalled.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L2)).isEqualTo(l2Hits + 1);

                proxy.resume();
                stalled.awaitHealthy();
                assertThat(stalled.groups.get(1)).isEqualTo(reference.groups.get(1));
            } finally {
                proxy.resume();
                stalled.close();
            }
        }
    }
}
