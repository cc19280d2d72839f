package dev.tandem.cache;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.NewRating;
import dev.tandem.group.NewSession;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Readers and writers on two hybrid instances over a small key set for a few seconds, the writes
 * including moves of groups between the subjects read. Once the writes stop and each instance's
 * log follower has made a pass since, every value either instance holds, in L1 or in L2, equals the
 * database, and so does every read.
 */
class ConcurrentStressTest {

    private static final Duration RUN = Duration.ofSeconds(4);
    private static final List<Long> GROUPS = List.of(1L, 2L, 3L, 11L);
    private static final List<Long> USERS = List.of(1L, 2L, 3L, 101L);
    private static final List<String> SUBJECTS = List.of("", "algorithms", "biology");
    /** The subjects groups move between: two of those read, so that every move is seen. */
    private static final List<String> MOVE_TO = List.of("algorithms", "biology");
    /** The failures a write may meet when others write the same rows; anything else is a bug. */
    private static final Set<ErrorCode> EXPECTED_WRITE_ERRORS = Set.of(ErrorCode.ALREADY_EXISTS,
            ErrorCode.FAILED_PRECONDITION, ErrorCode.ABORTED, ErrorCode.NOT_FOUND);

    @Test
    void afterConcurrentReadsAndWritesEveryCachedValueEqualsTheDatabase() throws Exception {
        Instance a = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance b = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        a.resetData();
        a.awaitHealthy();
        b.awaitHealthy();

        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        List<Runnable> workers = new ArrayList<>();
        for (Instance i : List.of(a, b)) {
            workers.add(() -> write(i, stop, writes, unexpected));
            workers.add(() -> write(i, stop, writes, unexpected));
            workers.add(() -> read(i, stop, reads, unexpected));
            workers.add(() -> read(i, stop, reads, unexpected));
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(workers.size())) {
            List<Future<?>> running = new ArrayList<>();
            for (Runnable w : workers) {
                running.add(pool.submit(w));
            }
            Thread.sleep(RUN.toMillis());
            stop.set(true);
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        long writesStopped = System.nanoTime();
        System.out.printf("[stress] %d reads and %d successful writes in %s on two instances%n", reads.get(), writes.get(), RUN);
        assertThat(unexpected).as("unexpected failures").isEmpty();
        assertThat(writes.get()).isPositive();

        // Every write has returned. The staleness bound does not say when a follower catches up (one
        // that is behind stops serving L1, and a loaded machine can keep it behind for seconds):
        // what is awaited is a pass of each that started after the last write, and L1 being served
        // again. From then on nothing either instance holds may be stale.
        for (Instance i : List.of(a, b)) {
            i.awaitPassStartedAfter(writesStopped);
            i.awaitHealthy();
        }
        for (Instance i : List.of(a, b)) {
            Set<Map.Entry<CacheName<?>, Object>> keys = new HashSet<>();
            for (CacheName<?> cache : i.cache.catalog().all()) {
                Map<Object, Optional<?>> l1 = i.cache.l1().snapshot(cache);
                for (Map.Entry<Object, Optional<?>> entry : l1.entrySet()) {
                    assertThat(entry.getValue()).as("%s L1 %s %s", i, cache, entry.getKey())
                            .isEqualTo(Reads.truth(reference, cache, entry.getKey()));
                    keys.add(Map.entry(cache, entry.getKey()));
                }
            }
            assertThat(keys).as("%s has something cached", i).isNotEmpty();
            for (Map.Entry<CacheName<?>, Object> key : keys) {
                L2Tier.Seen<?> seen = readL2(i, key.getKey(), key.getValue());
                if (seen.hit()) {
                    assertThat(Optional.of(seen.value)).as("L2 %s %s", key.getKey(), key.getValue())
                            .isEqualTo(Reads.truth(reference, key.getKey(), key.getValue()));
                }
            }
            assertThat(Reads.all(i, GROUPS, USERS, SUBJECTS)).as("%s reads", i)
                    .isEqualTo(Reads.all(reference, GROUPS, USERS, SUBJECTS));
        }
    }

    /** Reads L2 directly for the check, retrying a command that timed out on a busy machine. */
    private static L2Tier.Seen<?> readL2(Instance i, CacheName<?> cache, Object key) {
        for (int attempt = 1; ; attempt++) {
            try {
                return i.cache.l2().read(cache, key);
            } catch (RedisGateway.Unavailable e) {
                if (attempt == 20) {
                    throw e;
                }
                Await.within(Duration.ofMillis(100), () -> false);
            }
        }
    }

    private static void read(Instance i, AtomicBoolean stop, AtomicLong reads, ConcurrentLinkedQueue<Throwable> unexpected) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            try {
                long group = GROUPS.get(random.nextInt(GROUPS.size()));
                String subject = SUBJECTS.get(random.nextInt(SUBJECTS.size()));
                switch (random.nextInt(4)) {
                    case 0 -> i.groups.get(group);
                    case 1 -> i.groups.list(subject, random.nextBoolean() ? 2 : 20, "");
                    case 2 -> i.groups.leaderboard(subject, random.nextBoolean() ? 3 : 0);
                    default -> i.users.get(USERS.get(random.nextInt(USERS.size())));
                }
                reads.incrementAndGet();
            } catch (DomainException e) {
                if (e.code() != ErrorCode.NOT_FOUND) {
                    unexpected.add(e);
                }
            } catch (Throwable t) {
                unexpected.add(t);
            }
        }
    }

    private static void write(Instance i, AtomicBoolean stop, AtomicLong writes, ConcurrentLinkedQueue<Throwable> unexpected) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            long group = GROUPS.get(random.nextInt(GROUPS.size()));
            long user = 1 + random.nextInt(100);
            try {
                switch (random.nextInt(7)) {
                    case 0, 1 -> i.groups.join(group, user);
                    case 2 -> i.groups.leave(group, anyMember(i, group));
                    case 3 -> i.groups.rate(new NewRating(group, user, 1 + random.nextInt(5), ""));
                    case 4 -> i.groups.update(new GroupChanges(group, new GroupFields("Circle " + random.nextInt(1000),
                            null, null, 0), Set.of("name"), i.version(group)));
                    // A move takes the group out of one subject's lists and leaderboards and into
                    // another's, while joins, leaves and ratings of the group invalidate by subject.
                    case 5 -> i.groups.update(new GroupChanges(group, new GroupFields(null,
                            MOVE_TO.get(random.nextInt(MOVE_TO.size())), null, 0), Set.of("subject"),
                            i.version(group)));
                    default -> i.groups.schedule(new NewSession(group, "Stress",
                            Instant.parse("2029-01-01T00:00:00Z").plusSeconds(random.nextInt(86_400 * 30)), 30, ""));
                }
                writes.incrementAndGet();
            } catch (DomainException e) {
                if (!EXPECTED_WRITE_ERRORS.contains(e.code())) {
                    unexpected.add(e);
                }
            } catch (Throwable t) {
                unexpected.add(t);
            }
        }
    }

    private static long anyMember(Instance i, long group) {
        return i.jdbc.sql("SELECT user_id FROM group_members WHERE group_id = ? ORDER BY RAND() LIMIT 1")
                .param(group).query(Long.class).optional().orElse(1L);
    }
}
