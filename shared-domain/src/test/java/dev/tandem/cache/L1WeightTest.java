package dev.tandem.cache;

import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * tandem.cache.l1.max-bytes next to max-entries: L1 holds at most max-bytes of encoded values per
 * cache name, and still at most max-entries entries. With the count alone, a cache of pages of
 * 1,000 groups held thousands of them and a bench warm-up ran a 512 MB REST service out of heap.
 * L1 alone; each value is its own encoded size (a codec that writes that many bytes).
 */
class L1WeightTest {

    private static final CacheCodec<Integer> SIZED = CacheCodec.of(size -> new byte[size], bytes -> bytes.length);
    private static final CacheName<Integer> PAGES = CacheName.keyed("weight-pages", SIZED);

    private static L1Tier l1(int maxEntries, DataSize maxBytes) {
        Duration ttl = Duration.ofSeconds(60);
        return new L1Tier(new CacheProperties.L1(maxEntries, maxBytes, ttl, 0, ttl, Duration.ZERO), Clock.systemUTC(),
                CacheCatalog.of(List.of(PAGES)), () -> 0L, Runnable::run, (cache, outcome) -> { });
    }

    private static void fill(L1Tier l1, int entries, int bytesEach) {
        for (long key = 1; key <= entries; key++) {
            l1.load(PAGES, key, () -> Optional.of(bytesEach), () -> true);
        }
    }

    private static long heldBytes(L1Tier l1) {
        return l1.snapshot(PAGES).values().stream().mapToLong(v -> v.map(size -> (Integer) size).orElse(0)).sum();
    }

    @Test
    void bigValuesAreBoundedByTheirEncodedSize() {
        L1Tier l1 = l1(1_000, DataSize.ofMegabytes(1));
        fill(l1, 100, 100_000);   // 10 MB of values offered, 1 MB allowed

        assertThat(heldBytes(l1)).isLessThanOrEqualTo(DataSize.ofMegabytes(1).toBytes());
        assertThat(l1.size(PAGES)).isBetween(1L, 10L);
    }

    @Test
    void smallValuesAreStillBoundedByCount() {
        L1Tier l1 = l1(1_000, DataSize.ofMegabytes(1));
        fill(l1, 5_000, 10);      // 50 KB: far under max-bytes, five times max-entries

        assertThat(l1.size(PAGES)).isLessThanOrEqualTo(1_000L).isGreaterThan(900L);
    }

    @Test
    void notFoundEntriesCountAsSmallOnes() {
        L1Tier l1 = l1(100, DataSize.ofMegabytes(1));
        for (long key = 1; key <= 500; key++) {
            l1.load(PAGES, key, Optional::<Integer>empty, () -> true);
        }
        Map<Object, Optional<?>> held = l1.snapshot(PAGES);
        assertThat(held).hasSizeLessThanOrEqualTo(100).allSatisfy((key, value) -> assertThat(value).isEmpty());
    }

    @Test
    void unsetBoundsFallBackToTheirDefaults() {
        CacheProperties.L1 defaults = new CacheProperties.L1(null, null, null, 0.1, null, null);
        assertThat(defaults.maxEntries()).isEqualTo(10_000);
        assertThat(defaults.maxBytes()).isEqualTo(DataSize.ofMegabytes(16));
    }
}
