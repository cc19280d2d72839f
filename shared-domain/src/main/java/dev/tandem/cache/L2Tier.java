package dev.tandem.cache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * L2: Redis, shared by every instance of both services. A value is one format byte followed by
 * the tandem.v1 protobuf bytes; a value that does not decode, or has a format this build does not
 * know, is a miss and is replaced (keyed caches: by a lease, so that the read fills a good value)
 * or deleted (pages, leaderboards). TTLs carry ±jitter.
 *
 * <p><b>Keyed caches</b> (e.g. group, user: {@code <prefix><cache>:<id>}). A write replaces the entry
 * with a tombstone (format byte 0 and 8 random bytes) that lives {@code tombstone-ttl}. A reader that
 * finds the entry empty leaves a lease of the same form in it, in the same step as its read; a
 * tombstone or a lease is a <em>claim</em> and reads as a miss. A fill stores only over exactly the
 * claim its reader saw before it loaded (a compare-and-set): a write since then replaced the claim
 * with its own tombstone, and a flush, an eviction ({@code maxmemory}) or the claim's expiry after a
 * long pause removed it — each of these can only make a fill fail, never store a value read before
 * a write. Two readers that missed together fill over the same claim; the first one wins.
 *
 * <p><b>Scoped caches</b> (e.g. groups-page, leaderboard). A write cannot name the pages it
 * changed, so each scope has a generation ({@code <prefix>v2:{<cache>:<scope>}:gen}, a random
 * token) that is part of every data key of the scope
 * ({@code <prefix>v2:{<cache>:<scope>}:<generation>:<suffix>}, the suffix being what the key
 * itself says, {@link ScopedKey#keySuffix()}). Invalidating deletes the generation;
 * the next reader starts a new random one, atomically with its read (one Lua script that reads the
 * generation and then the data key it names). A fill that read the database before the write lands under the dead generation, where
 * nobody looks, and expires. Chosen over a per-scope set of page keys because that set has to be
 * written before every load to be race-free (an extra round trip per miss), while the generation
 * is read in the same round trip as the value. Generations are random rather than counters so that
 * one lost to a flush or to eviction is never reused.
 *
 * <p><b>Redis Cluster.</b> A script may only touch keys of one hash slot. A scope's generation
 * and its data keys share the head {@code <prefix>v2:{<cache>:<scope>}}, which ends in the hash
 * tag's closing brace: whatever Redis takes as the tag (the first {@code {...}} of the key), it
 * takes the same text from both, so they live in one slot, and the read script runs on one node.
 * A keyed entry is one key, its value and its tombstone in turn. Different scopes and ids spread
 * over the slots; a write's invalidation is split by slot in {@link RedisGateway}. The same layout
 * runs unchanged on a single Redis. ({@code v2} is the layout: the keys of the untagged layout
 * before it are never read again and expire.)
 */
final class L2Tier {

    private static final Logger log = LoggerFactory.getLogger(L2Tier.class);

    static final byte VALUE_FORMAT = 1;
    /** The first byte of a claim (a tombstone or a lease). */
    static final byte CLAIM = 0;
    private static final int CLAIM_LENGTH = 9;
    /** The layout of the scoped caches' keys (hash-tagged for Redis Cluster). */
    static final String SCOPED_LAYOUT = "v2";

    /** What a read found; a fill must know it to be race-free. */
    static final class Seen<V> {
        final String dataKey;
        final V value;
        /** The claim (tombstone or lease) a keyed read saw, which its fill must find again; null otherwise. */
        final byte[] claim;

        Seen(String dataKey, V value, byte[] claim) {
            this.dataKey = dataKey;
            this.value = value;
            this.claim = claim;
        }

        boolean hit() {
            return value != null;
        }
    }

    private final RedisGateway redis;
    private final CacheMetrics metrics;
    private final Clock clock;
    private final String prefix;
    private final CacheProperties.L2 config;
    private final long generationTtlMs;
    private final long markerTtlMs;

    L2Tier(RedisGateway redis, CacheProperties properties, CacheMetrics metrics, Clock clock) {
        this.redis = redis;
        this.metrics = metrics;
        this.clock = clock;
        this.prefix = properties.redis().keyPrefix();
        this.config = properties.l2();
        // A generation that expires only costs a miss (the next reader starts a new one), so it
        // lives a little longer than the values under it and no longer.
        this.generationTtlMs = config.ttl().multipliedBy(2).toMillis();
        // A marker outlives its log row, so that a re-check of the log never relays a row again
        // only because its marker expired first: a row lives the retention, and up to the hole
        // timeout more while the followers wait for a number below it (the newest row, which is
        // never purged, has its marker's time renewed by the followers' purges: keepMarker).
        this.markerTtlMs = properties.log().retention().multipliedBy(2).plus(properties.log().holeTimeout()).toMillis();
    }

    String prefix() {
        return prefix;
    }

    /** Reads {@code key}; throws {@link RedisGateway.Unavailable} when Redis cannot be asked. */
    <V> Seen<V> read(CacheName<V> cache, Object key) {
        if (cache.scoped()) {
            ScopedKey scoped = (ScopedKey) key;
            String scope = scoped.scope();
            String head = scopeHead(cache, scope) + ":";
            String tail = ":" + scoped.keySuffix();
            List<byte[]> found = redis.readScoped(generationKey(cache, scope), freshGeneration(), generationTtlMs,
                    head, tail);
            String dataKey = head + new String(found.get(0), java.nio.charset.StandardCharsets.UTF_8) + tail;
            byte[] raw = found.size() > 1 ? found.get(1) : null;
            V value = raw == null ? null : decodeOrNull(cache, dataKey, raw);
            if (raw != null && value == null) {
                try {
                    redis.delete(dataKey);
                } catch (RedisGateway.Unavailable e) {
                    // Still a miss; the bad value expires by its TTL.
                }
            }
            return new Seen<>(dataKey, value, null);
        }
        String dataKey = keyedKey(cache, key);
        byte[] raw = redis.readOrLease(dataKey, newClaim(), tombstoneTtlMs());
        if (isClaim(raw)) {
            return new Seen<>(dataKey, null, raw);
        }
        V value = decodeOrNull(cache, dataKey, raw);
        if (value != null) {
            return new Seen<>(dataKey, value, null);
        }
        // A value that does not decode is replaced by a lease (if nothing replaced it meanwhile), so
        // that this read's fill can store a good one over it.
        byte[] lease = newClaim();
        try {
            return new Seen<>(dataKey, null, redis.setOverClaim(dataKey, raw, lease, tombstoneTtlMs()) ? lease : null);
        } catch (RedisGateway.Unavailable e) {
            return new Seen<>(dataKey, null, null);
        }
    }

    /** The value, or null (counted, logged) when it does not decode or has a format this build does not know. */
    private <V> V decodeOrNull(CacheName<V> cache, String dataKey, byte[] raw) {
        if (raw.length > 0 && raw[0] == VALUE_FORMAT) {
            try {
                return cache.decode(Arrays.copyOfRange(raw, 1, raw.length));
            } catch (Exception e) {
                log.warn("L2 value {} does not decode as {}; replacing it ({})", dataKey, cache, e.toString());
            }
        } else {
            log.warn("L2 value {} has unknown format {}; replacing it", dataKey, raw.length == 0 ? "(empty)" : raw[0]);
        }
        metrics.decodeFailure(cache);
        return null;
    }

    /**
     * Stores {@code value} where {@code seen} found nothing, unless that would be unsafe (see the
     * class comment). Never throws: a fill that fails is only a later miss.
     *
     * @return whether the value was stored
     */
    <V> boolean fill(CacheName<V> cache, Seen<V> seen, V value) {
        long ttlMs = ttlMs(cache, value);
        if (ttlMs <= 0) {
            return false;
        }
        try {
            byte[] bytes = frame(cache.encode(value));
            if (cache.scoped()) {
                return redis.setIfAbsent(seen.dataKey, bytes, ttlMs);
            }
            return seen.claim != null && redis.setOverClaim(seen.dataKey, seen.claim, bytes, ttlMs);
        } catch (RedisGateway.Unavailable e) {
            // Counted by the gateway; the next reader misses.
            return false;
        }
    }

    private <V> long ttlMs(CacheName<V> cache, V value) {
        double jitter = config.ttlJitter() == 0 ? 0
                : ThreadLocalRandom.current().nextDouble(-config.ttlJitter(), config.ttlJitter());
        long ttl = Math.round(config.ttl().toMillis() * (1 + jitter));
        Optional<Duration> valid = cache.validFor(value, clock.instant());
        return valid.map(d -> Math.min(ttl, d.toMillis())).orElse(ttl);
    }

    /** The keys a write's tombstones go to. */
    List<String> tombstoneKeys(Invalidation invalidation) {
        List<String> keys = new ArrayList<>();
        for (Invalidation.Target t : invalidation.targets()) {
            if (!t.cache().scoped()) {
                keys.add(keyedKey(t.cache(), t.key()));
            }
        }
        return keys;
    }

    /** The generations a write ends. */
    List<String> generationKeys(Invalidation invalidation) {
        List<String> keys = new ArrayList<>();
        for (Invalidation.Target t : invalidation.targets()) {
            if (t.cache().scoped()) {
                keys.add(generationKey(t.cache(), (String) t.key()));
            }
        }
        return keys;
    }

    long tombstoneTtlMs() {
        return config.tombstoneTtl().toMillis();
    }

    /**
     * Writes a log row's L2 part — its tombstones and dropped generations, or for a flush row the
     * whole keyspace deleted — and then the row's marker, which tells every follower that this row
     * needs no relay. The marker holds the row's token, so that it stands for this row and not for
     * another the log numbers alike after a restart. Throws {@link RedisGateway.Unavailable}: the
     * row is then relayed later.
     */
    void relay(InvalidationLog.Appended row, InvalidationLog.Kind kind, Invalidation invalidation) {
        if (kind == InvalidationLog.Kind.FLUSH) {
            flush();
            redis.set(markerKey(row.seq()), markerValue(row), markerTtlMs);
            return;
        }
        redis.invalidateAndMark(tombstoneKeys(invalidation), generationKeys(invalidation), newClaim(),
                tombstoneTtlMs(), markerKey(row.seq()), markerValue(row), markerTtlMs);
    }

    /**
     * Writes a row's tombstones and dropped generations without its marker, so that every follower
     * that reads the row still relays it: for a commit whose outcome is unknown, which may become
     * visible only later (see WritePath). Throws {@link RedisGateway.Unavailable}.
     */
    void invalidateUnmarked(Invalidation invalidation) {
        redis.invalidateAndMark(tombstoneKeys(invalidation), generationKeys(invalidation), newClaim(),
                tombstoneTtlMs(), null, null, markerTtlMs);
    }

    /**
     * Gives the marker of {@code seq}, if it is there, a marker's whole time to live again. The log's
     * newest row is never purged (an empty log means a new one), so it outlives any fixed time to
     * live: without this its marker expired after twice the retention, and the next instance to read
     * the row (one starting, or any after a Redis reconnect) relayed it again, which for a flush row
     * emptied the whole of L2. Throws {@link RedisGateway.Unavailable}.
     */
    void keepMarker(long seq) {
        redis.expire(markerKey(seq), markerTtlMs);
    }

    /**
     * Per row, whether its marker is in Redis (its relay is done): a marker under its number that
     * holds its token, not another row's. A row written before tokens (token 0, by a build from
     * before V3, during an upgrade too) has a marker holding 1: any marker stands for it, as before,
     * so an upgrade does not relay every row of the log again (for a flush row, emptying L2). One
     * round trip.
     */
    List<Boolean> relayed(List<InvalidationLog.Appended> rows) {
        List<String> keys = new ArrayList<>(rows.size());
        for (InvalidationLog.Appended row : rows) {
            keys.add(markerKey(row.seq()));
        }
        List<byte[]> found = redis.values(keys);
        List<Boolean> out = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            InvalidationLog.Appended row = rows.get(i);
            out.add(row.relayToken() == 0 ? found.get(i) != null : Arrays.equals(found.get(i), markerValue(row)));
        }
        return out;
    }

    /**
     * Whether a marker that survived a failover vouches for its row's tombstones. On one Redis (and
     * under Sentinel) one script writes a row's tombstones and its marker, and the master replicates
     * the script as one unit: a failover loses both or neither. On a cluster they are written to the
     * masters of their slots, each replicating to its own replica on its own, so a failover can lose
     * a tombstone whose marker, on another master, stays.
     */
    boolean markersReplicateWithTheirTombstones() {
        return !redis.cluster();
    }

    private static byte[] markerValue(InvalidationLog.Appended row) {
        return ByteBuffer.allocate(Long.BYTES).putLong(row.relayToken()).array();
    }

    /**
     * One cheap Redis call while the breaker is half-open: the breaker closes only after calls
     * succeed, and an instance whose reads are all L1 hits might otherwise make none for long.
     */
    void probeIfRecovering() {
        if (redis.breaker().getState() == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.HALF_OPEN) {
            try {
                redis.pttl(markerKey(0));
            } catch (RedisGateway.Unavailable e) {
                // Still down: the breaker opens again.
            }
        }
    }

    /**
     * The identity of the database L2 was read from, as Redis records it; null when none is
     * recorded (a new or emptied Redis, or one a build from before the record filled). It sits
     * beside the relay markers, whose rows belong to that database's log, and like them it
     * survives a flush and has no time to live: gone, a recreated database could not be told.
     * Throws {@link RedisGateway.Unavailable}.
     */
    String databaseRecorded() {
        byte[] recorded = redis.get(databaseKey());
        return recorded == null ? null : new String(recorded, StandardCharsets.UTF_8);
    }

    /** Records that L2 holds what database {@code identity} held. Throws {@link RedisGateway.Unavailable}. */
    void recordDatabase(String identity) {
        redis.setForever(databaseKey(), identity.getBytes(StandardCharsets.UTF_8));
    }

    String databaseKey() {
        return markerPrefix() + "database";
    }

    /** Every marker shares one hash slot ({relayed}), so one MGET reads many on a cluster too. */
    String markerKey(long seq) {
        return markerPrefix() + seq;
    }

    static byte[] newClaim() {
        byte[] t = new byte[CLAIM_LENGTH];
        ThreadLocalRandom.current().nextBytes(t);
        t[0] = CLAIM;
        return t;
    }

    static boolean isClaim(byte[] raw) {
        return raw.length == CLAIM_LENGTH && raw[0] == CLAIM;
    }

    static byte[] frame(byte[] payload) {
        byte[] out = new byte[payload.length + 1];
        out[0] = VALUE_FORMAT;
        System.arraycopy(payload, 0, out, 1, payload.length);
        return out;
    }

    /** Deletes every key of this cache's prefix (values, claims, generations) but the relay markers. */
    long flush() {
        // The relay markers stay: a marker says its row's L2 part was written, and a flush does not
        // undo that (it only removes more). Were they flushed too, every row before the flush would
        // look unrelayed to a follower that reads it later — a starting instance, a re-check — and
        // relaying an old flush row again would empty L2 for nothing.
        return redis.deleteByPrefix(prefix, markerPrefix());
    }

    private String markerPrefix() {
        return prefix + "log:{relayed}:";
    }

    String keyedKey(CacheName<?> cache, Object id) {
        return prefix + cache.id() + ":" + id;
    }

    String generationKey(CacheName<?> cache, String scope) {
        return scopeHead(cache, scope) + ":gen";
    }

    /**
     * What every key of one scope starts with, up to and including its hash tag's closing brace
     * (see the class comment): the generation key and the data keys share one cluster slot.
     */
    private String scopeHead(CacheName<?> cache, String scope) {
        return prefix + SCOPED_LAYOUT + ":{" + cache.id() + ":" + scope + "}";
    }

    private static String freshGeneration() {
        return Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
    }
}
