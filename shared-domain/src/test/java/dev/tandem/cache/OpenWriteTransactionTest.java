package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.CommitCuttingProxy;
import dev.tandem.testsupport.SeededRows;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A write whose COMMIT never reaches MariaDB (its writer paused or cut off right after sending its
 * last statement) keeps its transaction open, and with it the lock on its invalidation-log row, until
 * the server notices the connection is gone: hours, for a connection that just stops talking. No
 * other instance may wait for it. The followers' purge did: its DELETE of old rows read up to, or
 * across, the open row and waited for its lock (innodb_lock_wait_timeout, 50 s), re-queued every
 * time it timed out. Meanwhile the follower completed no pass, so no instance served L1 or read L2,
 * and every other write's log row queued behind the waiting purges: writes hung for minutes on every
 * instance (MariaDB 10.11: one INSERT waited 692 s). Here the COMMIT is held in a proxy until the open
 * row is older than the follower's retention (so its purge has to pass it whatever index it reads by).
 */
class OpenWriteTransactionTest {

    private static final String HELD_NAME = "Renamed by a COMMIT that never arrives";

    @Test
    void aWriteWhoseCommitNeverArrivesHoldsUpNoOtherWriteAndNoFollower() throws Exception {
        Instance reference = Instance.reference();
        int databasePort = reference.context.getEnvironment().getRequiredProperty("tandem.db.port", Integer.class);
        Duration retention = Duration.ofSeconds(10);
        try (CommitCuttingProxy proxy = CommitCuttingProxy.start(databasePort)) {
            Instance writer = Instance.named("hybrid-commit-held-" + System.nanoTime(), CacheMode.HYBRID,
                    List.of("--tandem.db.port=" + proxy.port()));
            // A retention of 10 s (the least a 1-s bound allows) rather than 60: the open row is
            // older than it sooner.
            Instance follower = Instance.named("hybrid-retention-10s-" + System.nanoTime(), CacheMode.HYBRID,
                    List.of("--tandem.cache.log.retention=" + retention.toSeconds() + "s"));
            try {
                follower.resetData();
                writer.awaitHealthy();
                follower.awaitHealthy();
                follower.groups.get(1);

                proxy.holdNextWriteCommit();
                Throwable failure = catchThrowable(() -> writer.groups.update(new GroupChanges(2,
                        new GroupFields(HELD_NAME, null, null, 0), Set.of("name"), reference.version(2))));
                assertThat(failure).as("the writer lost its connection during the COMMIT").isNotNull();
                assertThat(proxy.commitsCut()).as("the proxy holds the COMMIT").isEqualTo(1);
                // The open row was inserted before now, so it is older than the retention from here on.
                LocalDateTime pastRetention = reference.jdbc.sql("SELECT NOW(6) + INTERVAL ? SECOND")
                        .param(retention.toSeconds()).query(LocalDateTime.class).single();

                // The follower's first purge once the open row is past its retention: done (the
                // follower notes itself right after) or still running.
                Await.until("a purge of the follower's after the open row passed its retention", Duration.ofSeconds(30),
                        () -> noteAfter(follower, pastRetention) != null || purging(follower));
                long user = SeededRows.nonMember(follower.jdbc, 1);
                assertTimeoutPreemptively(Duration.ofSeconds(30), () -> follower.groups.join(1, user),
                        "another write while the COMMIT is held (its log row waited behind the purges)");
                GroupView joined = reference.groups.get(1);
                assertThat(follower.groups.get(1)).as("the write is read back").isEqualTo(joined);

                // The first note past that moment may follow a purge just before it: the second follows one after.
                LocalDateTime firstNote = Await.value("the follower's first note after the open row passed its retention",
                        Duration.ofSeconds(30), () -> noteAfter(follower, pastRetention));
                Await.value("a completed purge of the follower's after the open row passed its retention",
                        Duration.ofSeconds(30), () -> noteAfter(follower, firstNote));
                assertThat(follower.cache.l1Trusted()).as("the follower serves L1: %s", follower.cache.status()).isTrue();
                long l1Hits = follower.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1);
                assertThat(follower.groups.get(1)).isEqualTo(joined);
                assertThat(follower.cache.metrics().hits(GroupCaches.GROUP, CacheMetrics.Level.L1)).isEqualTo(l1Hits + 1);
            } finally {
                writer.close();
                // its short retention would purge rows under the other tests' instances
                follower.close();
            }
            // Closing the proxy closes the held connection: the server rolls the write back.
        }
        assertThat(reference.groups.get(2).name()).isNotEqualTo(HELD_NAME);
        reference.resetData();
    }

    /** The instance's last note in cache_followers if it is later than {@code after}, else null. */
    private static LocalDateTime noteAfter(Instance i, LocalDateTime after) {
        return i.jdbc.sql("SELECT last_seen FROM cache_followers WHERE instance_id = ? AND last_seen > ?")
                .params(i.cache.instanceId(), after).query(LocalDateTime.class).optional().orElse(null);
    }

    /** Whether the instance's log follower is deleting rows of the log now. */
    private static boolean purging(Instance i) {
        return i.jdbc.sql("SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? "
                        + "AND info LIKE 'DELETE FROM cache_invalidations%'")
                .param(i.cache.follower().connectionId()).query(Long.class).single() > 0;
    }
}
