package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupView;
import dev.tandem.group.GroupsPageKey;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.SeededRows;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A read that loaded the old value from MySQL, then waited until a concurrent write had committed
 * and invalidated, then tried to store what it loaded: its caller gets the old value (their read
 * overlapped the write), but no cache level may keep it.
 */
class FillRaceTest {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    /** Runs {@code read} on another thread; its loader returns only once {@code afterWrite} holds. */
    private static <V> CompletableFuture<Optional<V>> racingRead(Instance i, CacheName<V> cache, Object key, V stale,
                                                                  CountDownLatch loaded, BooleanSupplier afterWrite) {
        return CompletableFuture.supplyAsync(() -> i.cache.get(cache, key, () -> {
            loaded.countDown();
            assertThat(Await.within(PATIENCE, afterWrite)).as("the write's invalidation happened").isTrue();
            return Optional.of(stale);
        }));
    }

    @Test
    void l2KeyedFillDoesNotOverwriteTheTombstoneOfAWriteThatCommittedDuringItsLoad() throws Exception {
        Instance r = Instance.named("redis-a", CacheMode.REDIS);
        Instance reference = Instance.reference();
        r.resetData();
        String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
        GroupView stale = reference.groups.get(1);

        CountDownLatch loaded = new CountDownLatch(1);
        // The read leaves its lease in the empty entry; the write's tombstone replaces it.
        java.util.concurrent.atomic.AtomicReference<byte[]> lease = new java.util.concurrent.atomic.AtomicReference<>();
        var read = racingRead(r, GroupCaches.GROUP, 1L, stale, loaded, () -> {
            byte[] now = r.cache.redis().get(key);
            return lease.get() != null && isClaim(now) && !java.util.Arrays.equals(now, lease.get());
        });
        assertThat(loaded.await(10, TimeUnit.SECONDS)).isTrue();
        lease.set(r.cache.redis().get(key));
        assertThat(isClaim(lease.get())).as("the read left a lease").isTrue();
        r.groups.join(1, SeededRows.nonMember(r.jdbc, 1));
        assertThat(read.get(10, TimeUnit.SECONDS)).contains(stale);

        GroupView fresh = reference.groups.get(1);
        assertThat(fresh).isNotEqualTo(stale);
        byte[] after = r.cache.redis().get(key);
        assertThat(isClaim(after) && !java.util.Arrays.equals(after, lease.get()))
                .as("the tombstone survived the stale fill").isTrue();
        assertThat(r.groups.get(1)).isEqualTo(fresh);
        // A fill that loaded after the write replaces the tombstone at once (no wait for it to expire).
        assertThat(r.cache.l2().read(GroupCaches.GROUP, 1L).value).isEqualTo(fresh);
    }

    @Test
    void l2KeyedFillOverAnOlderTombstoneFailsWhenAnotherWriteCameInBetween() throws Exception {
        Instance r = Instance.named("redis-a", CacheMode.REDIS);
        Instance reference = Instance.reference();
        r.resetData();
        String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
        long user = SeededRows.nonMember(r.jdbc, 1);
        r.groups.join(1, user);
        byte[] first = r.cache.redis().get(key);
        assertThat(isClaim(first)).isTrue();
        GroupView stale = reference.groups.get(1);

        CountDownLatch loaded = new CountDownLatch(1);
        var read = racingRead(r, GroupCaches.GROUP, 1L, stale, loaded, () -> {
            byte[] now = r.cache.redis().get(key);
            return isClaim(now) && !java.util.Arrays.equals(now, first);
        });
        assertThat(loaded.await(10, TimeUnit.SECONDS)).isTrue();
        r.groups.leave(1, user);
        assertThat(read.get(10, TimeUnit.SECONDS)).contains(stale);

        assertThat(isClaim(r.cache.redis().get(key))).as("the second tombstone survived").isTrue();
        assertThat(r.groups.get(1)).isEqualTo(reference.groups.get(1)).isNotEqualTo(stale);
    }

    @Test
    void l2PageFillLandsInADeadGenerationWhenAWriteCommittedDuringItsLoad() throws Exception {
        Instance r = Instance.named("redis-a", CacheMode.REDIS);
        Instance reference = Instance.reference();
        r.resetData();
        GroupsPageKey key = new GroupsPageKey("algorithms", 3, 0);
        String generation = r.cache.l2().generationKey(GroupCaches.GROUPS_PAGE, "algorithms");
        GroupPage stale = reference.groups.list("algorithms", 3, "");

        CountDownLatch loaded = new CountDownLatch(1);
        var read = racingRead(r, GroupCaches.GROUPS_PAGE, key, stale, loaded,
                () -> r.cache.redis().get(generation) == null);
        assertThat(loaded.await(10, TimeUnit.SECONDS)).isTrue();
        // The read has started the generation of the page's scope (its subject); the write ends it.
        assertThat(r.cache.redis().get(generation)).isNotNull();
        r.groups.join(1, SeededRows.nonMember(r.jdbc, 1));
        assertThat(read.get(10, TimeUnit.SECONDS)).contains(stale);

        GroupPage fresh = reference.groups.list("algorithms", 3, "");
        assertThat(fresh).isNotEqualTo(stale);
        assertThat(r.groups.list("algorithms", 3, "")).isEqualTo(fresh);
        assertThat(r.groups.list("algorithms", 3, "")).isEqualTo(fresh);
        assertThat(r.cache.l2().read(GroupCaches.GROUPS_PAGE, key).value).isEqualTo(fresh);
    }

    @Test
    void l1FillIsDroppedWhenAnInvalidationFromAnotherInstanceArrivesDuringItsLoad() throws Exception {
        Instance a = Instance.named("local-a", CacheMode.LOCAL);
        Instance b = Instance.named("local-b", CacheMode.LOCAL);
        Instance reference = Instance.reference();
        a.resetData();
        Await.within(b.cache.stalenessBound(), () -> b.cache.l1().size() == 0);
        GroupView stale = reference.groups.get(1);
        long invalidations = b.cache.l1().invalidationCount(GroupCaches.GROUP, 1L);

        CountDownLatch loaded = new CountDownLatch(1);
        var read = racingRead(b, GroupCaches.GROUP, 1L, stale, loaded,
                () -> b.cache.l1().invalidationCount(GroupCaches.GROUP, 1L) != invalidations);
        assertThat(loaded.await(10, TimeUnit.SECONDS)).isTrue();
        a.groups.join(1, SeededRows.nonMember(a.jdbc, 1));
        assertThat(read.get(10, TimeUnit.SECONDS)).contains(stale);

        GroupView fresh = reference.groups.get(1);
        assertThat(b.cache.l1().getIfPresent(GroupCaches.GROUP, 1L)).as("B did not keep the stale load").isNull();
        assertThat(b.groups.get(1)).isEqualTo(fresh);
        assertThat(b.cache.l1().getIfPresent(GroupCaches.GROUP, 1L)).contains(fresh);
    }

    /**
     * Pages are invalidated a scope (their subject) at a time, by moving the scope's L1 generation;
     * a page still being loaded lands under the old one, and the load's own check keeps it out as
     * well.
     */
    @Test
    void l1PageFillIsDroppedWhenItsScopeIsInvalidatedDuringItsLoad() throws Exception {
        Instance a = Instance.named("local-a", CacheMode.LOCAL);
        Instance b = Instance.named("local-b", CacheMode.LOCAL);
        Instance reference = Instance.reference();
        a.resetData();
        Await.within(b.cache.stalenessBound(), () -> b.cache.l1().size() == 0);
        GroupsPageKey key = new GroupsPageKey("algorithms", 3, 0);
        GroupPage stale = reference.groups.list("algorithms", 3, "");
        long invalidations = b.cache.l1().invalidationCount(GroupCaches.GROUPS_PAGE, "algorithms");

        CountDownLatch loaded = new CountDownLatch(1);
        var read = racingRead(b, GroupCaches.GROUPS_PAGE, key, stale, loaded,
                () -> b.cache.l1().invalidationCount(GroupCaches.GROUPS_PAGE, "algorithms") != invalidations);
        assertThat(loaded.await(10, TimeUnit.SECONDS)).isTrue();
        a.groups.join(1, SeededRows.nonMember(a.jdbc, 1));
        assertThat(read.get(10, TimeUnit.SECONDS)).contains(stale);

        GroupPage fresh = reference.groups.list("algorithms", 3, "");
        assertThat(fresh).isNotEqualTo(stale);
        assertThat(b.cache.l1().getIfPresent(GroupCaches.GROUPS_PAGE, key)).as("B did not keep the stale page").isNull();
        assertThat(b.groups.list("algorithms", 3, "")).isEqualTo(fresh);
    }

    @Test
    void hybridFillRacingALocalWriteKeepsNothingStale() throws Exception {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        h.resetData();
        GroupView stale = reference.groups.get(1);
        long before = countMembers(reference, 1);

        CountDownLatch loaded = new CountDownLatch(1);
        // Here the write's own L1 invalidation waits for this load to finish (one loader per key),
        // so the loader returns as soon as the commit is visible.
        var read = racingRead(h, GroupCaches.GROUP, 1L, stale, loaded, () -> countMembers(reference, 1) != before);
        assertThat(loaded.await(10, TimeUnit.SECONDS)).isTrue();
        h.groups.join(1, SeededRows.nonMember(h.jdbc, 1));
        assertThat(read.get(10, TimeUnit.SECONDS)).contains(stale);

        GroupView fresh = reference.groups.get(1);
        assertThat(h.cache.l1().getIfPresent(GroupCaches.GROUP, 1L)).isNotEqualTo(Optional.of(stale));
        L2Tier.Seen<GroupView> inL2 = h.cache.l2().read(GroupCaches.GROUP, 1L);
        assertThat(inL2.value).isIn(null, fresh);
        assertThat(h.groups.get(1)).isEqualTo(fresh);
    }

    private static long countMembers(Instance i, long group) {
        return i.jdbc.sql("SELECT COUNT(*) FROM group_members WHERE group_id = ?").param(group).query(Long.class).single();
    }

    private static boolean isClaim(byte[] raw) {
        return raw != null && L2Tier.isClaim(raw);
    }

    static Instant now() {
        return Instant.now();
    }
}
