package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.SeededRows;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

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

    /**
     * The test's probes of what Redis holds, on a connection of their own with Lettuce's default
     * 60-s timeout: the service's 100 ms (tandem.cache.redis.command-timeout) is for serving, and a
     * machine busy with the other test modules ran a probe past it (make test, 2026-11-30).
     */
    private static RedisClient probeClient;
    private static StatefulRedisConnection<String, byte[]> probe;

    @BeforeAll
    static void connectTheProbe() {
        probeOn(LocalServers.shared().redisPort);
    }

    @AfterAll
    static void closeTheProbe() {
        closeProbe();
    }

    private static void probeOn(int port) {
        probeClient = RedisClient.create(RedisURI.create("127.0.0.1", port));
        probe = probeClient.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    }

    private static void closeProbe() {
        probe.close();
        probeClient.shutdown();
    }

    private static byte[] stored(String key) {
        return probe.sync().get(key);
    }

    /** What {@code key} holds, for a failure's message: a claim or a value, and for how long. */
    private static String held(String key) {
        byte[] raw = stored(key);
        String what = raw == null ? "nothing" : L2Tier.isClaim(raw) ? "a claim " + HexFormat.of().formatHex(raw)
                : "a value of " + raw.length + " bytes";
        return what + " (PTTL " + probe.sync().pttl(key) + " ms)";
    }

    @Test
    void aFlushBetweenTheMissAndTheFillMakesTheFillFail() throws Exception {
        Instance r = Instance.named("redis-a", CacheMode.REDIS);
        raceAWriteAndThen(r, tombstone -> r.cache.flushAll("claimed-fill-test"));
    }

    /**
     * On a Redis of its own: eviction under maxmemory takes any key of the server, and the shared one
     * holds the entries, claims and markers of the other modules' tests, which run at the same time.
     */
    @Test
    void anEvictionBetweenTheMissAndTheFillMakesTheFillFail() throws Exception {
        LocalServers own = LocalServers.onFreePorts("claimed-fill-eviction"); // its MariaDB is never started
        Instance.RedisTarget target = new Instance.RedisTarget("claimed-fill-eviction",
                List.of("--spring.data.redis.port=" + own.redisPort));
        own.start("redis");
        closeProbe();
        probeOn(own.redisPort);
        Instance.useRedis(target);
        try {
            Instance r = Instance.named("redis-a", CacheMode.REDIS);
            String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
            raceAWriteAndThen(r, tombstone -> evictUnderMaxmemory(key));
        } finally {
            try {
                Instance.closeAndUseDefault(target);
                closeProbe();
                probeOn(LocalServers.shared().redisPort);
            } finally {
                own.stop("redis");
            }
        }
    }

    /** The read pauses until the write's tombstone has expired (claims live 1 s on this instance). */
    @Test
    void aPauseLongerThanTheClaimMakesTheFillFail() throws Exception {
        Instance r = Instance.named("redis-short-claims", CacheMode.REDIS, List.of("--tandem.cache.l2.tombstone-ttl=1s"));
        String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
        // Gone, not empty: once it expired, another instance's read of the group (a refresh ahead)
        // may lease the key at once, with a claim like it that lives that instance's tombstone-ttl.
        raceAWriteAndThen(r, tombstone -> Await.until("the tombstone expired", Duration.ofSeconds(5),
                () -> !Arrays.equals(stored(key), tombstone)));
    }

    /**
     * A read misses and pauses in its load; a write changes the group and leaves its tombstone;
     * {@code removeTheTombstone} (given its bytes) takes it away; then the read's fill, which finds
     * its own claim no longer there, must not store the value it loaded before the write.
     */
    private static void raceAWriteAndThen(Instance r, Consumer<byte[]> removeTheTombstone) throws Exception {
        Instance reference = Instance.reference();
        r.resetData();
        String key = r.cache.l2().keyedKey(GroupCaches.GROUP, 1L);
        byte[] before = stored(key);
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
        r.groups.join(1, SeededRows.nonMember(r.jdbc, 1));
        GroupView fresh = reference.groups.get(1);
        assertThat(fresh).isNotEqualTo(stale);
        // Every follower must have passed the write's row first: one that reads it after an eviction
        // which took its relay marker too (allkeys-random evicts any key) relays it again, and the
        // tombstone is back before the read fills (safe, but then this race is not the one tested).
        r.awaitFollowersPastTheLog();
        byte[] tombstone = stored(key);
        assertThat(tombstone != null && L2Tier.isClaim(tombstone)).as("the write's tombstone: %s", held(key)).isTrue();
        removeTheTombstone.accept(tombstone);
        assertThat(Arrays.equals(stored(key), tombstone)).as("the write's tombstone is gone: %s", held(key)).isFalse();
        tombstoneGone.set(true);
        assertThat(read.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).contains(stale);

        L2Tier.Seen<GroupView> inL2 = r.cache.l2().read(GroupCaches.GROUP, 1L);
        assertThat(inL2.value).as("L2 did not keep the value loaded before the write").isNotEqualTo(stale);
        assertThat(r.groups.get(1)).isEqualTo(fresh);
    }

    /**
     * Evicts {@code key} the way Redis does under memory pressure: a maxmemory just above what is in
     * use, allkeys-random, and filler keys written until {@code key} is gone; then the old settings
     * and no filler are left. On the probe's Redis, which must be the test's own.
     */
    private static void evictUnderMaxmemory(String key) {
        var redis = probe.sync();
        String policy = redis.configGet("maxmemory-policy").get("maxmemory-policy");
        String maxmemory = redis.configGet("maxmemory").get("maxmemory");
        String fillers = Instance.keyPrefix() + "claimed-fill-test:filler:";
        byte[] filler = "x".repeat(10_000).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try {
            long used = Long.parseLong(redis.info("memory").lines()
                    .filter(line -> line.startsWith("used_memory:")).findFirst().orElseThrow()
                    .substring("used_memory:".length()).trim());
            redis.configSet("maxmemory-policy", "allkeys-random");
            redis.configSet("maxmemory", Long.toString(used + 1_000_000));
            int written = 0;
            while (stored(key) != null) {
                assertThat(written).as("evicted within 200,000 filler keys").isLessThan(200_000);
                for (int i = 0; i < 50; i++, written++) {
                    redis.set(fillers + written, filler);
                }
            }
        } finally {
            redis.configSet("maxmemory", maxmemory);
            redis.configSet("maxmemory-policy", policy);
            List<String> left = redis.keys(fillers + "*");
            if (!left.isEmpty()) {
                redis.del(left.toArray(String[]::new));
            }
        }
    }
}
