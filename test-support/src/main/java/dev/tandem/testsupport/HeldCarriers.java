package dev.tandem.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Every carrier thread of the JVM's virtual-thread scheduler held by a virtual thread that spins and
 * never yields, until {@link #close()}. To anything that runs on a virtual thread this is a saturated
 * instance at its worst: it waits for a carrier for as long as the hold lasts. What runs on platform
 * threads of its own (the kernel schedules those beside the carriers) goes on. So a test can show
 * that something is served while requests wait, with no speed in it: one side is never answered
 * during the hold, the other is.
 */
public final class HeldCarriers implements AutoCloseable {

    private static final Duration BOUND = Duration.ofSeconds(30);

    private final List<Thread> spinners = new ArrayList<>();
    private volatile boolean held = true;

    private HeldCarriers() {
    }

    /** Holds every carrier; returns once each is held (a spinner that runs never lets its carrier go). */
    public static HeldCarriers hold() throws InterruptedException {
        // The scheduler's own default, unless the JVM was told otherwise.
        int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
        HeldCarriers hold = new HeldCarriers();
        CountDownLatch running = new CountDownLatch(carriers);
        for (int i = 0; i < carriers; i++) {
            hold.spinners.add(Thread.ofVirtual().name("held-carrier-" + i).start(() -> {
                running.countDown();
                while (hold.held) {
                    Thread.onSpinWait();
                }
            }));
        }
        if (!running.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            hold.close();
            throw new IllegalStateException("not every carrier could be held within " + BOUND);
        }
        return hold;
    }

    @Override
    public void close() throws InterruptedException {
        held = false;
        for (Thread spinner : spinners) {
            spinner.join(BOUND);
        }
    }
}
