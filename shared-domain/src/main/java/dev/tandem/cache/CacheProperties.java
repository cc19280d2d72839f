package dev.tandem.cache;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.UUID;

/**
 * {@code tandem.cache.*}, documented with its defaults in tandem-domain.yml. Every value is read
 * once at start-up.
 *
 * @param mode              none, local, redis or hybrid
 * @param stalenessBound    how long after a write another instance's L1 may still serve the old
 *                          value; an instance whose own heartbeat has not come back for this long
 *                          stops serving L1
 * @param heartbeatInterval how often each instance publishes its heartbeat
 * @param instanceId        names this instance on the invalidation channel (random when blank)
 */
@ConfigurationProperties("tandem.cache")
public record CacheProperties(CacheMode mode, L1 l1, L2 l2, Redis redis, Duration stalenessBound,
                              Duration heartbeatInterval, String instanceId) {

    /**
     * @param maxEntries  per cache name
     * @param ttl         how long an entry lives at most
     * @param negativeTtl how long a "not found" lives
     */
    public record L1(int maxEntries, Duration ttl, Duration negativeTtl) {
        public L1 {
            maxEntries = maxEntries <= 0 ? 10_000 : maxEntries;
            ttl = orDefault(ttl, Duration.ofSeconds(60));
            negativeTtl = orDefault(negativeTtl, Duration.ofSeconds(2));
        }
    }

    /**
     * @param ttl          base TTL of a value in Redis
     * @param ttlJitter    each TTL is drawn from ttl × (1 ± ttlJitter), so entries filled together do
     *                     not expire together
     * @param tombstoneTtl how long an invalidation's tombstone keeps a racing fill out; a fill whose
     *                     load took longer than half of it is not written
     */
    public record L2(Duration ttl, double ttlJitter, Duration tombstoneTtl) {
        public L2 {
            ttl = orDefault(ttl, Duration.ofMinutes(5));
            if (ttlJitter < 0 || ttlJitter >= 1) {
                throw new IllegalArgumentException("tandem.cache.l2.ttl-jitter must be in [0, 1), got " + ttlJitter);
            }
            tombstoneTtl = orDefault(tombstoneTtl, Duration.ofSeconds(10));
        }
    }

    /**
     * @param keyPrefix           every key of the cache starts with it, and the channel is
     *                            {@code keyPrefix + "invalidations"}
     * @param commandTimeout      Lettuce command timeout (spring.data.redis.timeout refers to it)
     * @param connectTimeout      (spring.data.redis.connect-timeout refers to it)
     * @param breakerOpenDuration how long the breaker stays open before it lets probes through
     */
    public record Redis(String keyPrefix, Duration commandTimeout, Duration connectTimeout,
                        Duration breakerOpenDuration) {
        public Redis {
            keyPrefix = keyPrefix == null || keyPrefix.isBlank() ? "tandem:cache:" : keyPrefix;
            // Keys that must share a Redis Cluster slot get their hash tag from L2Tier; a brace
            // in the prefix would become (or break) the tag.
            if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException("tandem.cache.redis.key-prefix must not contain { or }, got "
                        + keyPrefix);
            }
            commandTimeout = orDefault(commandTimeout, Duration.ofMillis(100));
            connectTimeout = orDefault(connectTimeout, Duration.ofMillis(500));
            breakerOpenDuration = orDefault(breakerOpenDuration, Duration.ofSeconds(1));
        }

        public String channel() {
            return keyPrefix + "invalidations";
        }
    }

    public CacheProperties {
        mode = mode == null ? CacheMode.HYBRID : mode;
        l1 = l1 == null ? new L1(0, null, null) : l1;
        l2 = l2 == null ? new L2(null, 0.1, null) : l2;
        redis = redis == null ? new Redis(null, null, null, null) : redis;
        stalenessBound = orDefault(stalenessBound, Duration.ofSeconds(1));
        heartbeatInterval = orDefault(heartbeatInterval, Duration.ofMillis(200));
        instanceId = instanceId == null || instanceId.isBlank() ? UUID.randomUUID().toString() : instanceId;
        // The bound is only kept if a healthy channel returns at least one heartbeat per bound.
        if (stalenessBound.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("tandem.cache.staleness-bound (" + stalenessBound
                    + ") must be at least twice tandem.cache.heartbeat-interval (" + heartbeatInterval + ")");
        }
    }

    private static Duration orDefault(Duration value, Duration fallback) {
        return value == null || value.isZero() || value.isNegative() ? fallback : value;
    }
}
