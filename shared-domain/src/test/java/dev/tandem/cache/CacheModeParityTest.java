package dev.tandem.cache;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.NewGroup;
import dev.tandem.group.NewRating;
import dev.tandem.group.NewSession;
import dev.tandem.user.NewUser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each mode answers exactly as mode none over one sequence of writes, with every cached read
 * compared after each write — twice, so that the second round is served from the cache. The
 * writes go through the instance under test, so this is also "the writer reads its own writes".
 */
class CacheModeParityTest {

    static final List<Long> GROUPS = List.of(1L, 2L, 3L, 11L, 51L, 999_999L);
    static final List<Long> USERS = List.of(1L, 5L, 101L, 999_999L);
    static final List<String> SUBJECTS = List.of("", "algorithms", "biology");

    record Step(String name, Consumer<Instance> write) {
    }

    @ParameterizedTest
    @EnumSource(CacheMode.class)
    void everyModeAnswersAsModeNoneThroughASequenceOfWrites(CacheMode mode) {
        Instance reference = Instance.reference();
        Instance tested = Instance.named(mode.name().toLowerCase() + "-a", mode);
        tested.resetData();
        tested.cache.resetCounters();

        long joiner = reference.firstUserWhere("id NOT IN (SELECT user_id FROM group_members WHERE group_id = 1)");
        long rater = reference.firstUserWhere("id NOT IN (SELECT user_id FROM ratings WHERE group_id = 1)");
        List<Step> steps = List.of(
                new Step("seeded", i -> { }),
                new Step("join group 1", i -> i.groups.join(1, joiner)),
                new Step("rate group 1", i -> i.groups.rate(new NewRating(1, rater, 5, "great"))),
                new Step("rename group 1", i -> i.groups.update(new GroupChanges(1,
                        new GroupFields("Renamed circle", null, null, 0), Set.of("name"), i.version(1)))),
                new Step("move group 11 to biology", i -> i.groups.update(new GroupChanges(11,
                        new GroupFields(null, "biology", null, 0), Set.of("subject"), i.version(11)))),
                new Step("describe group 2", i -> i.groups.update(new GroupChanges(2,
                        new GroupFields(null, null, "new words", 0), Set.of("description"), i.version(2)))),
                new Step("schedule a session first in group 3", i -> i.groups.schedule(new NewSession(3, "Warm-up",
                        Instant.parse("2029-06-01T10:00:00Z"), 60, "Online"))),
                new Step("leave group 1", i -> i.groups.leave(1, joiner)),
                new Step("create user 101 (cached as not found)", i ->
                        assertThat(i.users.create(new NewUser("New Person", "new.person@example.test")).id()).isEqualTo(101)),
                new Step("create group 51 (cached as not found)", i ->
                        assertThat(i.groups.create(new NewGroup("Fresh circle", "algorithms", "", 10, 101)).id()).isEqualTo(51)),
                new Step("rate group 51 into the leaderboards", i -> i.groups.rate(new NewRating(51, 5, 4, ""))),
                new Step("delete group 2", i -> i.groups.delete(2, 0)),
                // Version 1: group 1 was renamed to 2 above, so this one is stale.
                new Step("rejected update (rolled back)", i -> assertThatThrownBy(() -> i.groups.update(new GroupChanges(1,
                        new GroupFields("Never", null, null, 0), Set.of("name"), 1)))
                        .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ABORTED))));

        for (Step step : steps) {
            step.write().accept(tested);
            for (int round = 1; round <= 2; round++) {
                Map<String, Object> got = Reads.all(tested, GROUPS, USERS, SUBJECTS);
                Map<String, Object> want = Reads.all(reference, GROUPS, USERS, SUBJECTS);
                assertThat(got).as("%s after '%s', round %d", tested, step.name(), round).isEqualTo(want);
            }
        }

        CacheMetrics metrics = tested.cache.metrics();
        long l1Hits = tested.cache.catalog().all().stream().mapToLong(c -> metrics.hits(c, CacheMetrics.Level.L1)).sum();
        long l2Hits = tested.cache.catalog().all().stream().mapToLong(c -> metrics.hits(c, CacheMetrics.Level.L2)).sum();
        // The equal answers above came (in part) from the cache, not from MySQL every time.
        assertThat(l1Hits > 0).as("L1 hits in %s", mode).isEqualTo(mode.usesL1());
        assertThat(l2Hits > 0).as("L2 hits in %s", mode).isEqualTo(mode == CacheMode.REDIS);
    }
}
