package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link InvalidationLog#changedSince} (what a resumed watch asks) against the real purge. The purge
 * deletes rows by age, so the log's oldest row is not where its deletions end: a write that took its
 * number, then committed after the rows above it were purged (a COMMIT stalled past the follower's
 * hole timeout, as in LateCommitTest), is the oldest row, right above a position whose following
 * rows are gone. Failed before: changedSince found the position covered (not below the oldest row)
 * and nothing in the rows left naming the group, and answered that nothing had changed: the watch
 * did not send the state its client had missed.
 */
class InvalidationLogPurgeTest {

    @Test
    void aChangePurgedAboveALateCommitIsStillReported() throws Exception {
        Instance instance = Instance.named("hybrid-a", CacheMode.HYBRID);
        DataSource dataSource = instance.context.getBean(DataSource.class);
        // The instance's own log, on the instance's pool for both its connections: purged by hand here.
        InvalidationLog log = new InvalidationLog(dataSource, dataSource, instance.cache.catalog());
        long watched = 1;
        long elsewhere = 999_999_999L;
        // Nothing left for the instances' own purges (rows older than the retention) to delete
        // meanwhile: the test's purge is the only one that runs.
        purgeAllButTheNewest(log, log.maxSeq());
        long seen = log.maxSeq();

        try (Connection late = dataSource.getConnection()) {
            late.setAutoCommit(false);
            insert(late, elsewhere);              // seen + 1, committed last
            appendNaming(log, watched);
            long newest = appendNaming(log, elsewhere);
            // What every follower's purge does once the late row's number was given up and the rows
            // have aged past the retention: all it can see but the newest row.
            purgeAllButTheNewest(log, newest);
            late.commit();
        }

        assertThat(log.changedSince(seen, GroupCaches.GROUP, watched))
                .as("a change above the position was purged: the log cannot vouch that nothing changed").isTrue();
        assertThat(log.changedSince(log.maxSeq(), GroupCaches.GROUP, watched))
                .as("from the newest row on, the log still vouches").isFalse();
    }

    /**
     * Deletes every row it can see up to {@code newest} but that one, as the purge of every follower
     * does over time (a batch a pass, once the rows have aged past the retention).
     */
    private static void purgeAllButTheNewest(InvalidationLog log, long newest) {
        // Read by every running instance first: they are not to find rows gone before reading them.
        for (Instance follower : Instance.sameTarget()) {
            if (follower.cache.follower() != null) {
                Await.until(follower + " to read the log up to " + newest, Duration.ofSeconds(10),
                        () -> follower.cache.follower().highestSeen() >= newest);
            }
        }
        Await.until("the purge to leave " + newest + " the oldest row in sight", Duration.ofSeconds(10), () -> {
            log.purge(Duration.ZERO, newest);
            return log.read(0, List.of(), 1).getFirst().seq() == newest;
        });
    }

    private static long appendNaming(InvalidationLog log, long groupId) {
        return log.append(InvalidationLog.Kind.INVALIDATE, Invalidation.create().add(GroupCaches.GROUP, groupId)).seq();
    }

    private static void insert(Connection connection, long groupId) throws Exception {
        try (PreparedStatement row = connection.prepareStatement(
                "INSERT INTO cache_invalidations (kind, targets, relay_token) VALUES (0, ?, ?)")) {
            row.setBytes(1, Invalidation.create().add(GroupCaches.GROUP, groupId).encode());
            row.setLong(2, InvalidationLog.newToken());
            row.executeUpdate();
        }
    }
}
