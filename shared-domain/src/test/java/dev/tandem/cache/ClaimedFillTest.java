package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A keyed L2 fill stores only over the claim its read saw (see {@link L2Tier}). Here a read finds
 * the entry without a value (empty, or claimed by an earlier miss) and loads the old value from MySQL; a write commits (its tombstone replaces the
 * read's lease); then the tombstone itself disappears — deleted by a flush, evicted under
 * {@code maxmemory}, or expired during a long pause — before the read tries to store what it
 * loaded. With a plain SET NX (the fill before leases) the empty entry took the old value, stale
 * until the TTL; over a claim, the fill fails.
 */
class ClaimedFillTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aFlushBetweenTheMissAndTheFillMakesTheFillFail() throws Exception {
        Instance r = Instance.named("redis-a", CacheMode.REDIS);
        raceAWriteAndThen(r, () -> r.cache.flushAll("claimed-fill-test"));
    }

    @Test
    void anEvictionBetweenTheMissAndTheFillMakesTheFillFail() throws Exception {
        Instance r = Instance.named("redis-a", CacheMode.REDIS);
        String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
        raceAWriteAndThen(r, () -> evictUnderMaxmemory(r, key));
    }

    /** The read pauses until the write's tombstone has expired (claims live 1 s on this instance). */
    @Test
    void aPauseLongerThanTheClaimMakesTheFillFail() throws Exception {
        Instance r = Instance.named("redis-short-claims", CacheMode.REDIS, List.of("--tandem.cache.l2.tombstone-ttl=1s"));
        String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
        // Await.until asks again after a failed probe: a GET gets 100 ms
        // (tandem.cache.redis.command-timeout), which a machine busy with other test modules can
        // exceed once (a make test on 2026-11-30 failed on it).
        raceAWriteAndThen(r, () -> Await.until("the tombstone expired", Duration.ofSeconds(5),
                () -> r.cache.redis().get(key) == null));
    }

    private static void raceAWriteAndThen(Instance r, Runnable removeTheTombstone) throws Exception {
        Instance reference = Instance.reference();
        r.resetData();
        String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
        byte[] before = r.cache.redis().get(key);
        assertThat(before == null || L2Tier.isClaim(before)).as("no value cached after the reset").isTrue();
        GroupView stale = reference.groups.get(1);

        CountDownLatch loaded = new CountDownLatch(1);
        AtomicBoolean tombstoneGone = new AtomicBoolean();
        // A thread of its own: the common pool may have a single worker on a 2-core machine.
        CompletableFuture<Optional<GroupView>> read = CompletableFuture.supplyAsync(() ->
                r.cache.get(GroupCaches.GROUP, 1L, () -> {
                    loaded.countDown();
                    assertThat(Await.within(PATIENCE, tombstoneGone::get)).isTrue();
                    return Optional.of(stale);
                }), runnable -> Thread.ofPlatform().daemon().start(runnable));
        assertThat(loaded.await(10, TimeUnit.SECONDS)).isTrue();
        r.groups.join(1, TwoInstanceCoherenceTest.firstNonMember(r, 1));
        GroupView fresh = reference.groups.get(1);
        assertThat(fresh).isNotEqualTo(stale);
        // Every follower must have passed the write's row first: one that reads it after an eviction
        // which took its relay marker too (allkeys-random evicts any key) relays it again, and the
        // tombstone is back before the read fills (safe, but then this race is not the one tested).
        r.awaitFollowersPastTheLog();
        removeTheTombstone.run();
        assertThat(r.cache.redis().get(key)).as("the write's tombstone is gone").isNull();
        tombstoneGone.set(true);
        assertThat(read.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).contains(stale);

        L2Tier.Seen<GroupView> inL2 = r.cache.l2().read(GroupCaches.GROUP, 1L);
        assertThat(inL2.value).as("L2 did not keep the value loaded before the write").isNotEqualTo(stale);
        assertThat(r.groups.get(1)).isEqualTo(fresh);
    }

    /**
     * Evicts {@code key} the way Redis does under memory pressure: a maxmemory just above what is in
     * use, allkeys-random, and filler keys written until {@code key} is gone; then the old settings
     * and no filler are left.
     */
    private static void evictUnderMaxmemory(Instance r, String key) {
        try (var connection = r.redis().getConnection()) {
            var server = connection.serverCommands();
            String policy = server.getConfig("maxmemory-policy").getProperty("maxmemory-policy");
            String maxmemory = server.getConfig("maxmemory").getProperty("maxmemory");
            String fillers = Instance.keyPrefix() + "claimed-fill-test:filler:";
            byte[] filler = "x".repeat(10_000).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            try {
                long used = Long.parseLong(server.info("memory").getProperty("used_memory").trim());
                server.setConfig("maxmemory-policy", "allkeys-random");
                server.setConfig("maxmemory", Long.toString(used + 1_000_000));
                int written = 0;
                while (r.cache.redis().get(key) != null) {
                    assertThat(written).as("evicted within 200,000 filler keys").isLessThan(200_000);
                    for (int i = 0; i < 50; i++, written++) {
                        connection.stringCommands().set((fillers + written).getBytes(java.nio.charset.StandardCharsets.UTF_8), filler);
                    }
                }
            } finally {
                server.setConfig("maxmemory", maxmemory);
                server.setConfig("maxmemory-policy", policy);
                r.cache.redis().deleteByPrefix(fillers);
            }
        }
    }
}
