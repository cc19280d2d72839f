package dev.tandem.cache;

import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.SeededRows;
import dev.tandem.testsupport.StallingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

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

    /**
     * An Error out of a pass (here a subscriber's StackOverflowError) is logged and the next pass runs:
     * thrown out of the scheduled task, it cancelled the schedule for good, silently (a
     * ScheduledExecutorService suppresses every later run of a task that threw), and the instance
     * never read the log again. Failed before: the second flush's row was never read.
     */
    @Test
    void anErrorInAPassDoesNotStopTheFollower() {
        Instance instance = Instance.named("error-in-a-pass-" + System.nanoTime(), CacheMode.HYBRID);
        try {
            AtomicInteger handed = new AtomicInteger();
            instance.cache.subscribe((changes, position) -> {
                if (handed.getAndIncrement() == 0) {
                    throw new StackOverflowError("a subscriber's bug");
                }
            });
            instance.cache.flushAll("test-error-in-a-pass");
            Await.until("the subscriber to be handed the first flush", Duration.ofSeconds(20), () -> handed.get() > 0);

            instance.cache.flushAll("test-after-the-error");
            long newest = instance.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
            Await.until("the follower to read the row written after the failed pass", Duration.ofSeconds(20),
                    () -> instance.cache.follower().highestSeen() >= newest);
            Await.until("the subscriber to be handed it too", Duration.ofSeconds(20), () -> handed.get() > 1);
            instance.awaitHealthy();
        } finally {
            instance.close();
        }
    }

    /**
     * A row committed while the cache is stopped is read by the first pass after its start, from the
     * position it stopped at: the write shows within the bound, with no flush of L1.
     */
    @Test
    void aWriteCommittedWhileStoppedIsAppliedOnceStartedWithoutAFlush() {
        Instance reference = Instance.reference();
        Instance writer = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance restarted = Instance.named("restarted-behind-" + System.nanoTime(), CacheMode.HYBRID);
        try {
            writer.resetData();
            restarted.awaitHealthy();
            GroupView before = restarted.groups.get(1);
            assertThat(restarted.cache.l1().size()).as("L1 holds the group").isPositive();
            Map<String, Double> flushes = restarted.cache.metrics().flushCounts();
            long seenBefore = restarted.cache.follower().highestSeen();

            restarted.cache.stop();
            writer.groups.join(1, SeededRows.nonMember(reference.jdbc, 1));
            GroupView after = reference.groups.get(1);
            assertThat(after).isNotEqualTo(before);
            restarted.cache.start();

            assertThat(Await.within(Duration.ofSeconds(10), () -> restarted.groups.get(1).equals(after)))
                    .as("the restarted instance shows the write committed while it was stopped").isTrue();
            assertThat(restarted.cache.follower().highestSeen()).isGreaterThan(seenBefore);
            assertThat(restarted.cache.metrics().flushCounts()).as("L1 flushes").isEqualTo(flushes);
        } finally {
            restarted.close();
        }
    }

    /**
     * A stop while a pass waits on a database that does not answer: left to itself, the pass ends
     * only when its statement times out (the follower connection's socket timeout, 10 s). Had stop()
     * returned before the pass ended, the pass would go on after it (applying, flushing, purging on a
     * stopped cache), and a start() then would run a second loop beside it over the same follower
     * state, which only its own thread may touch. Nor does stop() wait out the timeout: it aborts the
     * hanging pass's connection, as a shutdown's bound (drain delay + grace period + a few seconds)
     * has no room for those 10 s.
     */
    @Test
    void aStopReturnsOnlyOnceThePassInProgressHasEnded() throws Exception {
        Instance reference = Instance.reference();
        int databasePort = reference.context.getEnvironment().getRequiredProperty("tandem.db.port", Integer.class);
        try (StallingProxy proxy = new StallingProxy(databasePort)) {
            Instance instance = Instance.named("restarted-stalled-" + System.nanoTime(), CacheMode.HYBRID,
                    List.of("--tandem.db.port=" + proxy.port()));
            try {
                proxy.stall();
                Thread stuck = Await.value("the follower's pass to wait on the silent connection", Duration.ofSeconds(30),
                        () -> followerWaitingOnTheDatabase(instance.cache.instanceId()));
                long asked = System.nanoTime();
                instance.cache.stop();
                assertThat(Duration.ofNanos(System.nanoTime() - asked))
                        .as("the stop, with its follower's pass waiting on a silent connection")
                        .isLessThan(CacheConfiguration.FOLLOWER_SOCKET_TIMEOUT.dividedBy(2));
                // Its pass, not the thread: the executor reports termination a moment before its thread is gone.
                assertThat(inAPass(stuck.getStackTrace())).as("the stopped cache's follower thread, still in its pass").isFalse();

                proxy.resume();
                instance.cache.start();
                instance.cache.flushAll("test-restart");
                long newest = instance.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
                Await.until("the restarted follower to read the newest row", Duration.ofSeconds(30),
                        () -> instance.cache.follower().highestSeen() >= newest);
            } finally {
                proxy.resume();
                instance.close();
            }
        }
    }

    /** The log follower thread of instance {@code instanceId} while it is in a pass reading from a socket, if it is. */
    private static Thread followerWaitingOnTheDatabase(String instanceId) {
        for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
            if (thread.getKey().getName().equals("tandem-cache-log-" + instanceId) && inAPass(thread.getValue())
                    && Arrays.stream(thread.getValue()).map(StackTraceElement::getClassName)
                            .anyMatch(name -> name.endsWith("SocketInputStream") || name.endsWith("NioSocketImpl"))) {
                return thread.getKey();
            }
        }
        return null;
    }

    private static boolean inAPass(StackTraceElement[] frames) {
        return Arrays.stream(frames).anyMatch(f ->
                f.getClassName().equals(LogFollower.class.getName()) && f.getMethodName().equals("pass"));
    }
}
