package dev.tandem.cache;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
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
import java.util.List;
import java.util.function.Supplier;

/**
 * Every Redis call of the cache, each through one Resilience4j circuit breaker and under Lettuce's
 * short command timeout. A call that fails, times out or is refused by the open breaker throws
 * {@link Unavailable}, which the callers turn into "go to the next level" — never into an error a
 * client sees.
 *
 * <p>The Lua scripts run as one atomic step on the server; the keys they compute (a generation's
 * data key) are not declared in KEYS, so they assume one Redis node, not a cluster.
 */
final class RedisGateway {

    /** Redis could not be asked; the caller degrades. */
    static final class Unavailable extends RuntimeException {
        Unavailable(String operation, Throwable cause) {
            super("redis " + operation + " failed: " + cause, cause, false, false);
        }
    }

    // KEYS[1] the subject's generation; ARGV[1] a fresh generation to start if there is none,
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

    // KEYS[1] an entry; ARGV[1] the tombstone the reader saw before it loaded, ARGV[2] the value,
    // ARGV[3] TTL (ms). Stores only over that same tombstone: a newer invalidation wrote another.
    private static final RedisScript<Long> FILL_OVER_TOMBSTONE = RedisScript.of("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
              return 1
            end
            return 0
            """, Long.class);

    // KEYS: ARGV[1] entries to tombstone, then generation keys to drop. ARGV[2] the tombstone,
    // ARGV[3] its TTL (ms), ARGV[4] the channel, ARGV[5] the message (may be empty: no publish).
    // L2 and the other instances learn of a write in one atomic step, so by the time an instance
    // applies the message, L2 no longer serves the old value.
    private static final RedisScript<Long> INVALIDATE_AND_PUBLISH = RedisScript.of("""
            local n = tonumber(ARGV[1])
            for i = 1, n do
              redis.call('SET', KEYS[i], ARGV[2], 'PX', ARGV[3])
            end
            for i = n + 1, #KEYS do
              redis.call('DEL', KEYS[i])
            end
            if #ARGV[5] > 0 then
              return redis.call('PUBLISH', ARGV[4], ARGV[5])
            end
            return 0
            """, Long.class);

    private static final RedisSerializer<byte[]> BYTES = RedisSerializer.byteArray();

    private final RedisTemplate<String, byte[]> redis;
    private final CircuitBreaker breaker;
    private final CacheMetrics metrics;

    RedisGateway(RedisTemplate<String, byte[]> redis, CircuitBreaker breaker, CacheMetrics metrics) {
        this.redis = redis;
        this.breaker = breaker;
        this.metrics = metrics;
    }

    CircuitBreaker breaker() {
        return breaker;
    }

    byte[] get(String key) {
        return call("get", () -> redis.opsForValue().get(key));
    }

    /** {generation, value-or-null} of a subject-scoped entry; see READ_SCOPED. */
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

    boolean setOverTombstone(String key, byte[] tombstone, byte[] value, long ttlMs) {
        Long set = call("fill", () -> run(FILL_OVER_TOMBSTONE, List.of(key), tombstone, value, bytes(ttlMs)));
        return set != null && set == 1L;
    }

    void invalidateAndPublish(List<String> tombstoneKeys, List<String> generationKeys, byte[] tombstone,
                              long tombstoneTtlMs, String channel, byte[] message) {
        List<String> keys = new ArrayList<>(tombstoneKeys);
        keys.addAll(generationKeys);
        call("invalidate", () -> run(INVALIDATE_AND_PUBLISH, keys, bytes(tombstoneKeys.size()), tombstone,
                bytes(tombstoneTtlMs), bytes(channel), message));
    }

    void publish(String channel, byte[] message) {
        call("publish", () -> redis.execute((RedisCallback<Long>) c -> c.publish(bytes(channel), message)));
    }

    void delete(String key) {
        call("delete", () -> redis.delete(key));
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
        return call("flush", () -> redis.execute((RedisCallback<Long>) c -> {
            long removed = 0;
            ScanOptions options = ScanOptions.scanOptions().match(escapeGlob(prefix) + "*").count(1000).build();
            List<byte[]> batch = new ArrayList<>();
            try (Cursor<byte[]> cursor = c.keyCommands().scan(options)) {
                while (cursor.hasNext()) {
                    batch.add(cursor.next());
                    if (batch.size() == 500) {
                        removed += unlink(c, batch);
                    }
                }
            }
            return removed + unlink(c, batch);
        }));
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
