package dev.tandem.cache;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisStringCommands.SetOption;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.core.types.Expiration;
import org.springframework.data.redis.serializer.RedisSerializer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Every Redis call of the cache, each through one Resilience4j circuit breaker and under Lettuce's
 * short command timeout. A call that fails, times out or is refused by the open breaker throws
 * {@link Unavailable}, which the callers turn into "go to the next level" — never into an error a
 * client sees.
 *
 * <p>The Lua scripts run as one atomic step on the server. The one key a script computes (a
 * generation's data key) is not declared in KEYS, but shares its declared generation key's hash
 * slot (see {@link L2Tier}), so the script also runs on a Redis Cluster node.
 *
 * <p><b>Redis Cluster</b> ({@code spring.data.redis.cluster.nodes}). Lettuce routes every keyed
 * command and script by its first key's slot and follows MOVED/ASK. Two things differ from one
 * Redis, both decided here:
 * <ul>
 * <li>A write's relay touches keys of several slots (a keyed entry, the generations of its
 * scopes, the relay marker). It runs as one script per slot, and the marker comes last, only after
 * every tombstone is written: a marker says its row's tombstones are in place. If a step fails the
 * marker is not written, and the row is relayed again (by this or any other instance). Each master
 * replicates on its own, though, so a failover can lose a tombstone whose marker stays on another
 * master: after one, the followers relay every row again ({@link L2Tier#markersReplicateWithTheirTombstones}).</li>
 * <li>SCAN sees one node's keys, so a flush scans every master that serves slots.</li>
 * </ul>
  */
final class RedisGateway {

    /** Redis could not be asked; the caller degrades. */
    static final class Unavailable extends RuntimeException {
        Unavailable(String operation, Throwable cause) {
            super("redis " + operation + " failed: " + cause, cause, false, false);
        }
    }

    // KEYS[1] the scope's generation; ARGV[1] a fresh generation to start if there is none,
    // ARGV[2] its TTL (ms); ARGV[3], ARGV[4] what goes before and after the generation in the
    // data key. Returns {generation, value or nil} in one round trip.
    private static final RedisScript<List> READ_SCOPED = RedisScript.of("""
            local gen = redis.call('GET', KEYS[1])
            if not gen then
              gen = ARGV[1]
              redis.call('SET', KEYS[1], gen, 'PX', ARGV[2])
            end
            return {gen, redis.call('GET', ARGV[3] .. gen .. ARGV[4])}
            """, List.class);

    // KEYS[1] an entry; ARGV[1] a fresh lease, ARGV[2] its TTL (ms). Returns what the entry holds (a
    // value or a tombstone) or, when it held nothing, the lease it now holds: a reader that missed
    // has then claimed the entry, and only a fill over exactly that claim may store (FILL_OVER_CLAIM).
    private static final RedisScript<byte[]> READ_OR_LEASE = RedisScript.of("""
            local v = redis.call('GET', KEYS[1])
            if v then
              return v
            end
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return ARGV[1]
            """, byte[].class);

    // KEYS[1] an entry; ARGV[1] the claim (tombstone or lease) the reader saw before it loaded,
    // ARGV[2] the value, ARGV[3] TTL (ms). Stores only over that very claim: a write since then
    // replaced it with its tombstone, and a flush, an eviction or an expiry removed it.
    private static final RedisScript<Long> FILL_OVER_CLAIM = RedisScript.of("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
              return 1
            end
            return 0
            """, Long.class);

    // KEYS: ARGV[1] entries to tombstone, then ARGV[2] generation keys to drop, then ARGV[3] marker
    // keys to set (0 or 1). ARGV[4] the tombstone, ARGV[5] its TTL (ms), ARGV[6] the marker's TTL
    // (ms), ARGV[7] the marker's value (its row's token). One atomic step, so a marker is never
    // there without its row's tombstones (on one Redis, and in the replication stream a replica
    // applies in order).
    private static final RedisScript<Long> INVALIDATE_AND_MARK = RedisScript.of("""
            local tombstones = tonumber(ARGV[1])
            local generations = tonumber(ARGV[2])
            local markers = tonumber(ARGV[3])
            for i = 1, tombstones do
              redis.call('SET', KEYS[i], ARGV[4], 'PX', ARGV[5])
            end
            for i = tombstones + 1, tombstones + generations do
              redis.call('DEL', KEYS[i])
            end
            for i = tombstones + generations + 1, tombstones + generations + markers do
              redis.call('SET', KEYS[i], ARGV[7], 'PX', ARGV[6])
            end
            return 0
            """, Long.class);

    private static final RedisSerializer<byte[]> BYTES = RedisSerializer.byteArray();

    private final RedisTemplate<String, byte[]> redis;
    private final CircuitBreaker breaker;
    private final CacheMetrics metrics;
    private final boolean cluster;

    /** {@code cluster}: whether {@code redis} talks to a Redis Cluster (see the class comment). */
    RedisGateway(RedisTemplate<String, byte[]> redis, CircuitBreaker breaker, CacheMetrics metrics, boolean cluster) {
        this.redis = redis;
        this.breaker = breaker;
        this.metrics = metrics;
        this.cluster = cluster;
    }

    boolean cluster() {
        return cluster;
    }

    CircuitBreaker breaker() {
        return breaker;
    }

    byte[] get(String key) {
        return call("get", () -> redis.opsForValue().get(key));
    }

    /** {generation, value-or-null} of a scoped entry; see READ_SCOPED. */
    List<byte[]> readScoped(String generationKey, String freshGeneration, long generationTtlMs,
                            String dataKeyHead, String dataKeyTail) {
        @SuppressWarnings("unchecked")
        List<byte[]> result = call("read-scoped", () -> run(READ_SCOPED, List.of(generationKey),
                bytes(freshGeneration), bytes(generationTtlMs), bytes(dataKeyHead), bytes(dataKeyTail)));
        return result;
    }

    boolean setIfAbsent(String key, byte[] value, long ttlMs) {
        Boolean set = call("fill", () -> redis.execute((RedisCallback<Boolean>) c -> c.stringCommands()
                .set(bytes(key), value, Expiration.milliseconds(ttlMs), SetOption.ifAbsent())));
        return Boolean.TRUE.equals(set);
    }

    /** What {@code key} holds, or the lease {@code lease} it holds from now on if it held nothing. */
    byte[] readOrLease(String key, byte[] lease, long leaseTtlMs) {
        return call("get", () -> run(READ_OR_LEASE, List.of(key), lease, bytes(leaseTtlMs)));
    }

    boolean setOverClaim(String key, byte[] claim, byte[] value, long ttlMs) {
        Long set = call("fill", () -> run(FILL_OVER_CLAIM, List.of(key), claim, value, bytes(ttlMs)));
        return set != null && set == 1L;
    }

    /**
     * Tombstones {@code tombstoneKeys}, deletes {@code generationKeys}, then sets {@code markerKey}
     * to {@code markerValue} (when not null): atomically on one Redis, one script per slot with the
     * marker last on a cluster.
     */
    void invalidateAndMark(List<String> tombstoneKeys, List<String> generationKeys, byte[] tombstone,
                           long tombstoneTtlMs, String markerKey, byte[] markerValue, long markerTtlMs) {
        List<String> markers = markerKey == null ? List.of() : List.of(markerKey);
        Marking marking = new Marking(tombstone, tombstoneTtlMs, markerValue == null ? new byte[0] : markerValue,
                markerTtlMs);
        if (!cluster) {
            call("invalidate", () -> invalidate(new SlotBatch(tombstoneKeys, generationKeys, markers), marking));
            return;
        }
        // One script per slot, the marker's slot last (see the class comment).
        Map<Integer, SlotBatch> bySlot = new LinkedHashMap<>();
        for (String key : tombstoneKeys) {
            bySlot.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(key), s -> new SlotBatch()).tombstones.add(key);
        }
        for (String key : generationKeys) {
            bySlot.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(key), s -> new SlotBatch()).generations.add(key);
        }
        SlotBatch last = markerKey == null ? null : bySlot.remove(ClusterSlotHashUtil.calculateSlot(markerKey));
        call("invalidate", () -> {
            for (SlotBatch batch : bySlot.values()) {
                invalidate(batch, marking);
            }
            if (markerKey != null) {
                SlotBatch withMarker = last == null ? new SlotBatch() : last;
                withMarker.markers.add(markerKey);
                invalidate(withMarker, marking);
            }
            return null;
        });
    }

    /** Keys of one hash slot that one invalidation script handles. */
    private static final class SlotBatch {
        final List<String> tombstones;
        final List<String> generations;
        final List<String> markers;

        SlotBatch() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }

        SlotBatch(List<String> tombstones, List<String> generations, List<String> markers) {
            this.tombstones = tombstones;
            this.generations = generations;
            this.markers = markers;
        }
    }

    /** What one invalidation writes: the tombstone and the marker's value, each with its time to live. */
    private record Marking(byte[] tombstone, long tombstoneTtlMs, byte[] markerValue, long markerTtlMs) {
    }

    private Long invalidate(SlotBatch batch, Marking marking) {
        List<String> keys = new ArrayList<>(batch.tombstones);
        keys.addAll(batch.generations);
        keys.addAll(batch.markers);
        if (keys.isEmpty()) {
            return 0L;
        }
        return run(INVALIDATE_AND_MARK, keys, bytes(batch.tombstones.size()), bytes(batch.generations.size()),
                bytes(batch.markers.size()), marking.tombstone(), bytes(marking.tombstoneTtlMs()),
                bytes(marking.markerTtlMs()), marking.markerValue());
    }

    /**
     * The values of {@code keys}, null where a key is missing (one MGET; the keys must share a slot
     * on a cluster).
     */
    List<byte[]> values(List<String> keys) {
        if (keys.isEmpty()) {
            return List.of();
        }
        List<byte[]> values = call("markers", () -> redis.opsForValue().multiGet(keys));
        if (values == null) {
            // Only inside a pipeline or transaction, which the gateway never opens.
            throw new IllegalStateException("MGET answered nothing");
        }
        return values;
    }

    void set(String key, byte[] value, long ttlMs) {
        call("set", () -> {
            redis.opsForValue().set(key, value, java.time.Duration.ofMillis(ttlMs));
            return null;
        });
    }

    /** {@code key} holds {@code value} from now on, with no time to live. */
    void setForever(String key, byte[] value) {
        call("set", () -> {
            redis.opsForValue().set(key, value);
            return null;
        });
    }

    void delete(String key) {
        call("delete", () -> redis.delete(key));
    }

    /** Gives {@code key} {@code ttlMs} to live from now, if it exists; false when it does not. */
    boolean expire(String key, long ttlMs) {
        return Boolean.TRUE.equals(call("expire", () -> redis.expire(key, java.time.Duration.ofMillis(ttlMs))));
    }

    /** Milliseconds to live of {@code key}: -2 when it does not exist, -1 without expiry. */
    long pttl(String key) {
        return call("pttl", () -> redis.execute((RedisCallback<Long>) c -> c.keyCommands().pTtl(bytes(key))));
    }

    /**
     * Unlinks every key that starts with {@code prefix}, a SCAN page at a time (never KEYS, which
     * would block Redis). Returns how many it removed.
     */
    long deleteByPrefix(String prefix) {
        return deleteByPrefix(prefix, null);
    }

    /** As {@link #deleteByPrefix(String)}, but keeps the keys that start with {@code keep} (when not null). */
    long deleteByPrefix(String prefix, String keep) {
        byte[] kept = keep == null ? null : bytes(keep);
        ScanOptions options = ScanOptions.scanOptions().match(escapeGlob(prefix) + "*").count(1000).build();
        return call("flush", () -> redis.execute((RedisCallback<Long>) c -> {
            if (!(c instanceof RedisClusterConnection clusterConnection)) {
                try (Cursor<byte[]> cursor = c.keyCommands().scan(options)) {
                    return unlinkAll(c, cursor, kept);
                }
            }
            // SCAN sees one node: every master that serves slots, each in turn. A master that is
            // down fails the flush (its keys may come back with it); one that lost its slots to a
            // replica holds none.
            long removed = 0;
            for (RedisClusterNode node : clusterConnection.clusterGetNodes()) {
                if (node.isMaster() && !node.getSlotRange().getSlots().isEmpty()) {
                    try (Cursor<byte[]> cursor = clusterConnection.scan(node, options)) {
                        removed += unlinkAll(c, cursor, kept);
                    }
                }
            }
            return removed;
        }));
    }

    private static long unlinkAll(org.springframework.data.redis.connection.RedisConnection c, Cursor<byte[]> cursor,
                                  byte[] keep) {
        long removed = 0;
        List<byte[]> batch = new ArrayList<>();
        while (cursor.hasNext()) {
            byte[] key = cursor.next();
            if (keep != null && key.length >= keep.length
                    && java.util.Arrays.equals(key, 0, keep.length, keep, 0, keep.length)) {
                continue;
            }
            batch.add(key);
            if (batch.size() == 500) {
                removed += unlink(c, batch);
            }
        }
        return removed + unlink(c, batch);
    }

    private static long unlink(org.springframework.data.redis.connection.RedisConnection c, List<byte[]> keys) {
        if (keys.isEmpty()) {
            return 0;
        }
        Long n = c.keyCommands().unlink(keys.toArray(byte[][]::new));
        keys.clear();
        return n == null ? 0 : n;
    }

    /** Runs a script by its SHA, loading it first if the server does not know it (Spring's executor). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <T> T run(RedisScript<T> script, List<String> keys, byte[]... args) {
        return (T) redis.execute((RedisScript) script, BYTES, (RedisSerializer) BYTES, keys, (Object[]) args);
    }

    private <T> T call(String operation, Supplier<T> action) {
        try {
            return breaker.executeSupplier(action);
        } catch (CallNotPermittedException e) {
            metrics.redisError(operation);
            throw new Unavailable(operation, e);
        } catch (RuntimeException e) {
            metrics.redisError(operation);
            throw new Unavailable(operation, e);
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(long n) {
        return bytes(Long.toString(n));
    }

    /** SCAN MATCH treats * ? [ ] and \ as pattern characters; a prefix must match only itself. */
    static String escapeGlob(String s) {
        StringBuilder out = new StringBuilder(s.length() + 4);
        for (char ch : s.toCharArray()) {
            if ("*?[]\\".indexOf(ch) >= 0) {
                out.append('\\');
            }
            out.append(ch);
        }
        return out.toString();
    }
}
