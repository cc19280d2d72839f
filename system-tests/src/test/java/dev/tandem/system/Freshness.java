package dev.tandem.system;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Reading after a write until the new value is answered, for a staleness bound: what the bound
 * limits is when a read that answered the old value <em>started</em> (a read that started in time
 * but was answered late, on a loaded machine, is no violation), so each stale read's start is
 * recorded, and how long it took to become fresh is only waited for, patiently.
 */
final class Freshness {

    private Freshness() {
    }

    /**
     * How long {@code who} went on answering the old value after a write returned: its first fresh
     * answer, and the start of its last stale read (zero when none was stale).
     */
    record Lag(String who, Duration firstFreshAnswer, Duration lastStaleReadStart, int reads) {
        @Override
        public String toString() {
            return who + " " + firstFreshAnswer.toMillis() + "/" + lastStaleReadStart.toMillis() + " ms";
        }
    }

    /**
     * Reads with {@code fresh} (true once the read answered the new value) until it does, from
     * {@code returned} (System.nanoTime when the write returned). Returns early once a stale read
     * started more than {@code allowed} after {@code returned}: that is already a violation, for
     * the caller to assert. Fails when no read is fresh within {@code patience}.
     */
    static Lag pollUntilFresh(String who, BooleanSupplier fresh, long returned, Duration allowed, Duration patience) {
        Duration lastStale = Duration.ZERO;
        int reads = 0;
        while (true) {
            long start = System.nanoTime();
            reads++;
            boolean isFresh = fresh.getAsBoolean();
            long end = System.nanoTime();
            if (isFresh) {
                return new Lag(who, Duration.ofNanos(end - returned), lastStale, reads);
            }
            lastStale = Duration.ofNanos(Math.max(0, start - returned));
            if (lastStale.compareTo(allowed) > 0) {
                return new Lag(who, Duration.ofNanos(end - returned), lastStale, reads);
            }
            if (Duration.ofNanos(end - returned).compareTo(patience) > 0) {
                throw new AssertionError(who + " still answers the old value " + patience + " after the write returned ("
                        + reads + " reads)");
            }
        }
    }
}
