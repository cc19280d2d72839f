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
 * A log row whose COMMIT completes after its number was given up as a hole (later than
 * {@code tandem.cache.log.hole-timeout}: a server stalled in COMMIT, or completing an ambiguous commit
 * that long after) is still applied once it becomes visible. The row and the change it stands for are
 * written in one transaction on a connection of the test's own, held open while a later row commits
 * and the instance (hole timeout 1 s) gives the number up. Failed before: the instance never read
 * the row again and served the group's former name from L1 (until its TTL, 60 s).
 */
class LateCommitTest {

    @Test
    void aRowCommittedAfterItsNumberWasGivenUpIsAppliedOnceVisible() throws Exception {
        Instance instance = Instance.named("late-commit-" + System.nanoTime(), CacheMode.HYBRID,
                List.of("--tandem.cache.log.hole-timeout=1s"));
        try {
            // The numbers below the first row it read are waited for at start too: given up first.
            Await.until("the instance's start-up holes given up", Duration.ofSeconds(30), () -> instance.cache.follower().holes() == 0);
            long group = 1;
            String before = instance.groups.get(group).name();
            DataSource dataSource = instance.context.getBean(DataSource.class);
            try (Connection late = dataSource.getConnection(); Connection other = dataSource.getConnection()) {
                late.setAutoCommit(false);
                try (PreparedStatement rename = late.prepareStatement("UPDATE study_groups SET name = ? WHERE id = ?");
                     PreparedStatement row = late.prepareStatement(
                             "INSERT INTO cache_invalidations (kind, targets, relay_token) VALUES (0, ?, ?)")) {
                    rename.setString(1, "Renamed by a late commit");
                    rename.setLong(2, group);
                    rename.executeUpdate();
                    row.setBytes(1, Invalidation.create().add(GroupCaches.GROUP, group).encode());
                    row.setLong(2, InvalidationLog.newToken());
                    row.executeUpdate();
                }
                // A later row, committed: the held one's number is now a hole below it.
                try (PreparedStatement row = other.prepareStatement(
                        "INSERT INTO cache_invalidations (kind, targets, relay_token) VALUES (0, ?, ?)")) {
                    row.setBytes(1, Invalidation.create().add(GroupCaches.GROUP, 999_999_999L).encode());
                    row.setLong(2, InvalidationLog.newToken());
                    row.executeUpdate();
                }
                double abandoned = instance.cache.metrics().holesAbandoned.count();
                Await.until("the instance to give the held row's number up", Duration.ofSeconds(30),
                        () -> instance.cache.metrics().holesAbandoned.count() > abandoned && instance.cache.follower().holes() == 0);
                assertThat(instance.groups.get(group).name()).as("served before the commit").isEqualTo(before);

                late.commit();
            }

            Await.until("the late row applied: the group's new name read through the instance", Duration.ofSeconds(10),
                    () -> instance.groups.get(group).name().equals("Renamed by a late commit"));
            assertThat(instance.cache.metrics().lateRows.count()).isEqualTo(1);
        } finally {
            instance.resetData();
            instance.close();
        }
    }
}
