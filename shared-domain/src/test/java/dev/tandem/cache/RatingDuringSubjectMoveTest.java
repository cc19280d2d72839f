package dev.tandem.cache;

import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.NewRating;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.PausingStatementInspector;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rating and an UpdateGroup that moves the rated group to another subject, interleaved at the
 * worst point: the rating has read the group — and with it the subject whose lists and
 * leaderboards it will invalidate — and is held just after that read (a latch in Hibernate's
 * statement inspector); the move runs; both instances read and cache the lists and leaderboards of
 * both subjects; then the rating goes on and commits. Whatever the order the database lets them
 * commit in, every cached read must afterwards equal the database. Unless the rating reads the
 * group with its row lock, the move commits while the rating is held, the new subject's entries
 * are cached without the rating, and the rating invalidates only the old subject.
 */
class RatingDuringSubjectMoveTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aRatingRacingASubjectMoveLeavesNoListOrLeaderboardOfEitherSubjectStale() throws Exception {
        Instance rater = Instance.named("hybrid-pausable", CacheMode.HYBRID, List.of(PausingStatementInspector.property()));
        Instance mover = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        mover.resetData();
        long id = 1;
        String from = reference.groups.get(id).subject();
        String to = from.equals("biology") ? "chemistry" : "biology";
        long user = reference.firstUserWhere("id NOT IN (SELECT user_id FROM ratings WHERE group_id = " + id + ")");
        List<Long> groups = List.of(id);
        List<Long> users = List.of(user);
        List<String> subjects = List.of("", from, to);
        assertThat(reference.groups.get(id).ratingCount()).as("the group is on its subject's leaderboard").isPositive();

        PausingStatementInspector.Pause afterReadingTheGroup = new PausingStatementInspector.Pause("users", PATIENCE);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<?> rating = pool.submit(() -> {
                // The group is the rating's first read; its next statement checks the user.
                afterReadingTheGroup.armForThisThread();
                try {
                    return rater.groups.rate(new NewRating(id, user, 1, ""));
                } finally {
                    afterReadingTheGroup.disarmForThisThread();
                }
            });
            Future<?> move;
            try {
                assertThat(afterReadingTheGroup.awaitReached(PATIENCE)).as("the rating read the group").isTrue();
                move = pool.submit(() -> mover.groups.update(new GroupChanges(id,
                        new GroupFields(null, to, null, 0), Set.of("subject"), reference.version(id))));
                assertThat(Await.within(PATIENCE, () -> move.isDone() || waitsForARowLock(reference)))
                        .as("the move committed or waits for the rating's lock").isTrue();
                System.out.printf("[rating vs move] while the rating was held after reading the group, the move %s%n",
                        move.isDone() ? "committed" : "waited for the group's row lock");
                for (Instance i : List.of(rater, mover)) {
                    Reads.all(i, groups, users, subjects);
                }
            } finally {
                afterReadingTheGroup.release();
            }
            rating.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            move.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }

        assertThat(reference.groups.get(id).subject()).isEqualTo(to);
        Map<String, Object> truth = Reads.all(reference, groups, users, subjects);
        for (Instance i : List.of(rater, mover)) {
            Await.within(i.cache.stalenessBound(), () -> Reads.all(i, groups, users, subjects).equals(truth));
            assertThat(Reads.differing(Reads.all(i, groups, users, subjects), truth)).as("%s: stale reads", i).isEmpty();
        }
    }

    /**
     * Whether a connection to this module's test database is running a locking read now (the
     * held rating is between statements, so that is the move waiting for the group's row lock).
     * Without the PROCESS privilege the processlist shows the connections of our own user only,
     * which are the instances'.
     */
    private static boolean waitsForARowLock(Instance i) {
        return i.jdbc.sql("""
                        SELECT COUNT(*) FROM information_schema.processlist
                         WHERE id <> CONNECTION_ID() AND db = DATABASE() AND command = 'Query'
                           AND LOWER(info) LIKE '%for update%'""")
                .query(Long.class).single() > 0;
    }
}
