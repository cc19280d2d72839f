package dev.tandem.cache;

import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Steady writes through instance A while Redis fails over or stops underneath (the cluster, Sentinel
 * and Redis outage tests), each write checked as the cache promises: A reads its own write at once,
 * and B sees it within the staleness bound. A write whose relay A could not make (its client had not
 * found the new master yet) is relayed from the invalidation log by the first follower that can,
 * which a failover may delay past the bound; such writes are counted ({@link #unpublishedAndUnseen}),
 * and the tests check at the end that every answer equals the database.
 */
final class FailoverTraffic implements AutoCloseable {

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger writes = new AtomicInteger();
    private final AtomicInteger unpublishedAndUnseen = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<Void> traffic;

    /**
     * Starts joining and leaving group 1 as {@code user} through {@code a}, with {@code reference}
     * (no cache) as the truth, reading {@code groups}, {@code users} and {@code subjects} through
     * both instances after each write.
     */
    FailoverTraffic(Instance a, Instance b, Instance reference, long user,
                    List<Long> groups, List<Long> users, List<String> subjects) {
        Duration bound = b.cache.stalenessBound();
        traffic = CompletableFuture.runAsync(() -> {
            boolean member = false;
            while (!stop.get()) {
                try {
                    double failedBefore = a.cache.metrics().invalidationsFailed.count();
                    if (member) {
                        a.groups.leave(1, user);
                    } else {
                        a.groups.join(1, user);
                    }
                    member = !member;
                    writes.incrementAndGet();
                    boolean published = a.cache.metrics().invalidationsFailed.count() == failedBefore;
                    GroupView truth = reference.groups.get(1);
                    if (!a.groups.get(1).equals(truth)) {
                        problems.add("A did not read its own write #" + writes.get());
                    }
                    if (!Await.within(bound, () -> b.groups.get(1).equals(truth))) {
                        if (published) {
                            problems.add("B did not see write #" + writes.get() + " within " + bound);
                        } else {
                            unpublishedAndUnseen.incrementAndGet();
                        }
                    }
                    Reads.all(a, groups, users, subjects);
                    Reads.all(b, groups, users, subjects);
                } catch (Throwable t) {
                    problems.add("request failed: " + t);
                }
            }
        });
    }

    int writes() {
        return writes.get();
    }

    /** Writes (each checked on both instances) the tests let the traffic make in each phase of a failover. */
    static final int WRITES_PER_PHASE = 5;

    /**
     * Waits until {@code traffic} has made {@code count} writes: the phases of a failover test are
     * counted in the traffic's own writes, not in seconds. A bound, not a speed.
     */
    static void awaitWrites(FailoverTraffic traffic, int count, String what) {
        Await.until(what + " (" + count + " writes)", Duration.ofSeconds(60), () -> traffic.writes() >= count);
    }

    int unpublishedAndUnseen() {
        return unpublishedAndUnseen.get();
    }

    /** Stops the writes, waits for the last one, and returns what went wrong (empty: nothing). */
    List<String> stop() throws Exception {
        stop.set(true);
        traffic.get(60, TimeUnit.SECONDS);
        return List.copyOf(problems);
    }

    @Override
    public void close() throws Exception {
        stop();
    }
}
