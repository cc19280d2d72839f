package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.LeaderboardView;
import dev.tandem.group.NewGroup;
import dev.tandem.group.NewRating;
import dev.tandem.group.NewSession;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.SeededRows;
import dev.tandem.user.NewUser;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances sharing MariaDB and Redis: a write on A is seen by B within the staleness bound,
 * for every cached read, including a cached "not found", and for every path by which a write
 * changes a page or a leaderboard (a row's counts, a move into or out of its subject, a deletion,
 * a creation). B has the old answer cached before each write (checked), so what is tested is
 * invalidation, not a cold read.
 */
class TwoInstanceCoherenceTest {

    /**
     * How long {@link #invalidationLagBetweenTwoInstances} waits for B to hold the entry, or for an
     * invalidation to reach it. There the lag is measured, not held to the bound (the parameterized
     * test does that, and an instance whose follower is late rightly stops serving L1 rather than
     * hurrying): a starved machine can keep B's follower behind for seconds, but an invalidation
     * that never arrives still fails.
     */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    record Case(String name, Function<Instance, Object> read, Consumer<Instance> write) {
    }

    @ParameterizedTest
    @EnumSource(value = CacheMode.class, names = {"LOCAL", "HYBRID"})
    void aWriteOnOneInstanceIsSeenByTheOtherWithinTheBound(CacheMode mode) {
        Instance a = Instance.named(mode.name().toLowerCase() + "-a", mode);
        Instance b = Instance.named(mode.name().toLowerCase() + "-b", mode);
        Instance reference = Instance.reference();
        a.resetData();
        Duration bound = b.cache.stalenessBound();

        long joiner = reference.firstUserWhere("id NOT IN (SELECT user_id FROM group_members WHERE group_id = 1)");
        long rater = reference.firstUserWhere("id NOT IN (SELECT user_id FROM ratings WHERE group_id = 1)");
        List<Case> cases = List.of(
                new Case("GetGroup after a join", i -> Reads.answer(() -> i.groups.get(1)),
                        i -> i.groups.join(1, joiner)),
                new Case("ListGroups page of a subject after a rating", i -> Reads.answer(() -> i.groups.list("algorithms", 3, "")),
                        i -> i.groups.rate(new NewRating(1, rater, 1, ""))),
                new Case("ListGroups second page of all subjects after a join", i -> Reads.answer(() ->
                                i.groups.list("", 20, Reads.token("", 20))),
                        i -> i.groups.join(25, SeededRows.nonMember(i.jdbc, 25))),
                new Case("leaderboard after its leader is rated down", i -> Reads.answer(() -> i.groups.leaderboard("", 10)),
                        i -> {
                            long leader = i.groups.leaderboard("", 1).groups().getFirst().id();
                            long user = i.firstUserWhere("id NOT IN (SELECT user_id FROM ratings WHERE group_id = " + leader + ")");
                            i.groups.rate(new NewRating(leader, user, 1, ""));
                        }),
                new Case("GetUser cached as not found, then created", i -> Reads.answer(() -> i.users.get(101)),
                        i -> i.users.create(new NewUser("Late Comer", "late.comer@example.test"))),
                new Case("ListGroups page of the subject a group moves to", i -> Reads.answer(() -> i.groups.list("biology", 20, "")),
                        i -> i.groups.update(new GroupChanges(1, new GroupFields(null, "biology", null, 0),
                                Set.of("subject"), i.version(1)))),
                new Case("GetGroup after a session is scheduled", i -> Reads.answer(() -> i.groups.get(3)),
                        i -> i.groups.schedule(new NewSession(3, "Early bird", Instant.parse("2029-03-01T09:00:00Z"), 45, ""))),
                new Case("GetGroup after the group is deleted", i -> Reads.answer(() -> i.groups.get(4)),
                        i -> i.groups.delete(4, 0)),
                // The derived entries that a write changes through another path than the ones above.
                new Case("ListGroups page of the subject a group moves out of",
                        i -> Reads.answer(() -> i.groups.list("algorithms", 20, "")),
                        i -> move(i, 11, "biology")),
                new Case("leaderboard of the subject its leader moves out of",
                        i -> Reads.answer(() -> i.groups.leaderboard("chemistry", 10)),
                        i -> move(i, i.groups.leaderboard("chemistry", 1).groups().getFirst().id(), "databases")),
                new Case("leaderboard of the subject a rated group moves into",
                        i -> Reads.answer(() -> i.groups.leaderboard("biology", 50)),
                        i -> move(i, i.groups.leaderboard("databases", 1).groups().getFirst().id(), "biology")),
                new Case("all-subjects leaderboard after its leader is deleted",
                        i -> Reads.answer(() -> i.groups.leaderboard("", 10)),
                        i -> i.groups.delete(i.groups.leaderboard("", 1).groups().getFirst().id(), 0)),
                new Case("all-subjects ListGroups page after a member leaves a row",
                        i -> Reads.answer(() -> i.groups.list("", 20, "")),
                        i -> i.groups.leave(5, i.jdbc.sql("""
                                SELECT MIN(m.user_id) FROM group_members m JOIN study_groups g ON g.id = m.group_id
                                 WHERE m.group_id = 5 AND m.user_id <> g.owner_id""").query(Long.class).single())),
                new Case("leaderboard after its leader's capacity changes",
                        i -> Reads.answer(() -> i.groups.leaderboard("", 5)),
                        i -> {
                            long leader = i.groups.leaderboard("", 1).groups().getFirst().id();
                            i.groups.update(new GroupChanges(leader, new GroupFields(null, null, null,
                                    i.groups.get(leader).capacity() + 1), Set.of("capacity"), i.version(leader)));
                        }),
                new Case("GetGroup cached as not found, then created", i -> Reads.answer(() -> i.groups.get(51)),
                        i -> assertThat(i.groups.create(new NewGroup("Late circle", "algorithms", "", 10, 1)).id())
                                .isEqualTo(51)),
                new Case("ListGroups page after a group is created in its subject",
                        i -> Reads.answer(() -> i.groups.list("algorithms", 2, Reads.token("algorithms", 41))),
                        i -> i.groups.create(new NewGroup("Later circle", "algorithms", "", 10, 1))));

        for (Case c : cases) {
            // B holds the current answer (the reset's flush reached it within the bound) ...
            assertThat(Await.within(bound, () -> c.read().apply(b).equals(c.read().apply(reference))))
                    .as("%s: B agrees before the write", c.name()).isTrue();
            Object before = c.read().apply(b);
            c.write().accept(a);
            long written = System.nanoTime();
            Object after = c.read().apply(reference);
            assertThat(after).as("%s changes the answer", c.name()).isNotEqualTo(before);
            // ... and has the new one within the bound.
            boolean seen = Await.within(bound, () -> c.read().apply(b).equals(after));
            long tookMicros = (System.nanoTime() - written) / 1000;
            System.out.printf("[coherence %s] %-55s seen on B after %6d us%n", mode, c.name(), tookMicros);
            assertThat(seen).as("%s: B sees A's write within %s", c.name(), bound).isTrue();
            // The writer read its own write at once, without waiting.
            assertThat(c.read().apply(a)).as("%s: A reads its own write", c.name()).isEqualTo(after);
        }
    }

    private static void move(Instance i, long group, String subject) {
        i.groups.update(new GroupChanges(group, new GroupFields(null, subject, null, 0), Set.of("subject"),
                i.version(group)));
    }

    /**
     * The figure for the closing note: how long an invalidation takes from A's commit to B's L1
     * (B's lag histogram), and from A's write returning to B's L1 entry being gone (measured here).
     * Printed, not asserted; what is asserted is that every write reaches B. Each write waits for one
     * of B's log passes (~0.1 s), so 60 writes: 300 cost half a minute, twice (this class also runs
     * under Redis Cluster), for a percentile the test does not need.
     */
    @Test
    void invalidationLagBetweenTwoInstances() {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        a.resetData();
        long user = SeededRows.nonMember(a.jdbc, 1);
        long before = b.cache.metrics().invalidationLag.count();
        int writes = 60;
        List<Long> endToEnd = new ArrayList<>();
        for (int n = 0; n < writes; n++) {
            // A read fills B's L1 only while B trusts it (its follower has made a pass within the
            // bound); one that bypassed L1 is repeated.
            assertThat(Await.within(PATIENCE, () -> {
                b.groups.get(1);
                return b.cache.l1().getIfPresent(GroupCaches.GROUP, 1L) != null;
            })).as("before write %d, B holds the group in L1", n).isTrue();
            if (n % 2 == 0) {
                a.groups.join(1, user);
            } else {
                a.groups.leave(1, user);
            }
            long written = System.nanoTime();
            assertThat(Await.within(PATIENCE, () -> b.cache.l1().getIfPresent(GroupCaches.GROUP, 1L) == null))
                    .as("write %d reached B", n).isTrue();
            endToEnd.add(System.nanoTime() - written);
        }
        // B's entry can also go by its TTL or size bound; the log rows still all arrive.
        assertThat(Await.within(PATIENCE,
                () -> b.cache.metrics().invalidationLag.count() - before >= writes)).isTrue();
        HistogramSnapshot lag = b.cache.metrics().invalidationLag.takeSnapshot();
        long[] sorted = endToEnd.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf("[invalidation lag] B's tandem.cache.invalidation.lag over %d messages: %s%n",
                lag.count(), Arrays.stream(lag.percentileValues())
                        .map(v -> "p%.0f=%.0f us".formatted(v.percentile() * 100, v.value(TimeUnit.MICROSECONDS)))
                        .toList());
        long beyondBound = endToEnd.stream().filter(nanos -> nanos > b.cache.stalenessBound().toNanos()).count();
        System.out.printf("[invalidation lag] A's write returned -> B's L1 entry gone, %d writes: p50=%d us p90=%d us max=%d us, %d beyond the bound%n",
                writes, sorted[writes / 2] / 1000, sorted[(int) (writes * 0.9)] / 1000, sorted[writes - 1] / 1000, beyondBound);
    }
}
