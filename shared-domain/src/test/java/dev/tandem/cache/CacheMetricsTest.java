package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.testsupport.Await;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.cumulative.CumulativeCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counts the admin endpoint shows are counters minus a baseline that a reset moves. A read that
 * took a counter before a reset and the baseline after it subtracted a newer baseline from an older
 * count: a negative count, and a hit ratio outside [0, 1] in the bench's window. The test stops the
 * reader between the two (a hook in the counters' {@code count()}), so the interleaving is forced,
 * not hoped for.
 */
class CacheMetricsTest {

    private static final CacheName<?> CACHE = GroupCaches.GROUP;

    /** Counters that stop one chosen thread right after it read a count, until the test lets it go on. */
    private static final class PausingRegistry extends SimpleMeterRegistry {
        volatile Thread pausedReader;
        final CountDownLatch readerPaused = new CountDownLatch(1);
        final CountDownLatch readerMayGoOn = new CountDownLatch(1);

        @Override
        protected Counter newCounter(Meter.Id id) {
            return new CumulativeCounter(id) {
                @Override
                public double count() {
                    double count = super.count();
                    if (Thread.currentThread() == pausedReader) {
                        pausedReader = null;
                        readerPaused.countDown();
                        try {
                            readerMayGoOn.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return count;
                }
            };
        }
    }

    @Test
    void aCountReadWhileTheBaselineIsResetIsNeverNegative() throws Exception {
        PausingRegistry registry = new PausingRegistry();
        CacheMetrics metrics = new CacheMetrics(registry, CacheCatalog.of(List.of(CACHE)));
        for (int i = 0; i < 3; i++) {
            metrics.hit(CACHE, CacheMetrics.Level.L1);
        }

        AtomicLong read = new AtomicLong(Long.MIN_VALUE);
        Thread reader = Thread.ofPlatform().unstarted(() -> read.set(metrics.hits(CACHE, CacheMetrics.Level.L1)));
        registry.pausedReader = reader;
        reader.start();
        registry.readerPaused.await();
        // The reader holds the count of 3. Two more hits, then a reset (on a thread of its own: a
        // reset that rightly waits for the read must not hold up the test).
        metrics.hit(CACHE, CacheMetrics.Level.L1);
        metrics.hit(CACHE, CacheMetrics.Level.L1);
        Thread resetter = Thread.ofPlatform().start(metrics::resetBaseline);
        Await.until("the reset to end, or to wait for the read in progress", Duration.ofSeconds(30),
                () -> !resetter.isAlive() || resetter.getState() == Thread.State.BLOCKED
                        || resetter.getState() == Thread.State.WAITING);
        registry.readerMayGoOn.countDown();
        reader.join();
        resetter.join();

        assertThat(read.get()).as("hits read across a reset (3 before it, the baseline 5 after it)")
                .isGreaterThanOrEqualTo(0);
        assertThat(metrics.hits(CACHE, CacheMetrics.Level.L1)).as("hits since the reset").isZero();
    }
}
