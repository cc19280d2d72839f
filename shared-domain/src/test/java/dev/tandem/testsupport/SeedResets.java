package dev.tandem.testsupport;

import dev.tandem.seed.SeedData;

/**
 * The wire tests' reset of the seeded data before each test, skipped where the test before it in
 * the same class proved that it changed no row. The hostile-input tables run some 1,400 cases that
 * each check every table unchanged, and a reset (five TRUNCATEs, a reload, a flush of every cache
 * level) was half of each case's time. Only within one class: another class may count on the
 * flush (a cold cache) that a reset brings.
 */
public final class SeedResets {

    /** The class whose last test left every table as the seed had it; null when none did. */
    private static Class<?> keptBy;

    private SeedResets() {
    }

    /** Resets to seed scale 1 unless the previous test of {@code testClass} kept the seed. */
    public static void beforeEach(SeedData seed, Class<?> testClass) {
        Class<?> kept = keptBy;
        // Cleared first: a test that fails (or never says) is taken to have changed something.
        keptBy = null;
        if (kept != testClass) {
            seed.reset(1);
        }
    }

    /**
     * Called by a test of {@code testClass} that has just compared {@link SeededRows#checksums}
     * before and after and found them equal: it started from the seed, so it left the seed.
     */
    public static void keptBy(Class<?> testClass) {
        keptBy = testClass;
    }
}
