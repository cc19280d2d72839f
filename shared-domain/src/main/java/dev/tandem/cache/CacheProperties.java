package dev.tandem.cache;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import java.time.Duration;
import java.util.UUID;

/**
 * {@code tandem.cache.*}, documented with its defaults in tandem-domain.yml. Every value is read
 * once at start-up.
 *
 * @param mode           none, local, redis or hybrid
 * @param stalenessBound how long after a write's commit another instance may still serve the old
 *                       value; an instance that has not read the invalidation log through within
 *                       this long stops serving L1 until it has
 * @param log            how the invalidation log is followed and kept
 * @param instanceId     names this instance in logs and the status (random when blank)
 */
@ConfigurationProperties("tandem.cache")
public record CacheProperties(CacheMode mode, L1 l1, L2 l2, Redis redis, Duration stalenessBound, Log log,
                              String instanceId) {

    /**
     * The longest instance id: cache_followers.instance_id (V2 migration) is a VARCHAR(100), and the
     * follower notes itself there every few seconds.
     */
    public static final int MOST_INSTANCE_ID_CHARACTERS = 100;

    /**
     * @param pollInterval how often each instance reads the invalidation log (one indexed query
     *                     when nothing is new)
     * @param retention    how long a row stays in the log: an instance that could not read the log
     *                     for longer than this flushes its L1 instead of replaying what it missed
     * @param holeTimeout  how long a sequence number that is missing below visible ones (its
     *                     transaction has not committed yet, or rolled back) is waited for
     */
    public record Log(Duration pollInterval, Duration retention, Duration holeTimeout) {
        public Log {
            pollInterval = positive(pollInterval, Duration.ofMillis(100), "tandem.cache.log.poll-interval");
            retention = positive(retention, Duration.ofSeconds(60), "tandem.cache.log.retention");
            holeTimeout = positive(holeTimeout, Duration.ofSeconds(30), "tandem.cache.log.hole-timeout");
        }
    }

    /**
     * @param maxEntries  per cache name, the most entries it holds
     * @param maxBytes    per cache name, the most its entries may hold, counted in their encoded size
     *                    (the bytes L2 stores, {@link CacheCodec}); an entry counts at least
     *                    maxBytes ÷ maxEntries, so both bounds hold. A count alone let pages of
     *                    1,000 groups (51 KB encoded, and more than three times that on the heap
     *                    with the wire forms kept beside them) fill a 512 MB heap (L1Tier)
     * @param ttl         how long an entry lives at most
     * @param ttlJitter   each lifetime (ttl, negativeTtl) is drawn from [ttl × (1 − ttlJitter), ttl],
     *                    so entries filled together do not expire together; only shorter, so ttl
     *                    stays the most an entry lives
     * @param negativeTtl how long a "not found" lives at most
     * @param refreshAfter a hit on an entry older than this also reloads it in the background, so a
     *                     hot entry is replaced before it expires instead of making its readers wait
     *                     (L1Tier, "Refresh ahead"); below the shortest lifetime, ttl × (1 − ttlJitter).
     *                     Absent: half that lifetime, which leaves the other half for the reload
     *                     on a saturated instance; 0: no refresh ahead (negative is refused: a typo
     *                     silently turned off what keeps a warm cache's hit ratio at 1)
     */
    public record L1(Integer maxEntries, DataSize maxBytes, Duration ttl, double ttlJitter, Duration negativeTtl,
                     Duration refreshAfter) {
        public L1 {
            maxEntries = maxEntries == null ? 10_000 : maxEntries;
            Settings.requireAtLeastOne(maxEntries, "tandem.cache.l1.max-entries");
            maxBytes = maxBytes == null ? DataSize.ofMegabytes(16) : maxBytes;
            if (maxBytes.toBytes() <= 0) {
                throw new IllegalArgumentException(Settings.named("tandem.cache.l1.max-bytes") + " must be positive, got " + maxBytes);
            }
            ttl = positive(ttl, Duration.ofSeconds(60), "tandem.cache.l1.ttl");
            requireJitter("tandem.cache.l1.ttl-jitter", ttlJitter);
            negativeTtl = positive(negativeTtl, Duration.ofSeconds(2), "tandem.cache.l1.negative-ttl");
            Duration shortestLifetime = Duration.ofNanos(Math.round(ttl.toNanos() * (1 - ttlJitter)));
            if (refreshAfter == null) {
                refreshAfter = shortestLifetime.dividedBy(2);
            } else if (refreshAfter.isNegative()) {
                throw new IllegalArgumentException(Settings.named("tandem.cache.l1.refresh-after")
                        + " must be 0 (no refresh ahead) or positive, got " + refreshAfter);
            } else if (!refreshAfter.isZero() && refreshAfter.compareTo(shortestLifetime) >= 0) {
                // It would refresh only entries that may already have expired: some hot entries
                // would still expire under their readers, which is what it is there to prevent.
                throw new IllegalArgumentException("tandem.cache.l1.refresh-after (" + refreshAfter
                        + ") must be below the shortest L1 lifetime, tandem.cache.l1.ttl x (1 - ttl-jitter) = "
                        + shortestLifetime + " (0 turns refresh ahead off)");
            }
        }
    }

    /**
     * @param ttl          base TTL of a value in Redis
     * @param ttlJitter    each TTL is drawn from ttl × (1 ± ttlJitter), so entries filled together do
     *                     not expire together
     * @param tombstoneTtl how long a claim (a write's tombstone, a reader's lease) lives: a fill whose
     *                     load took longer than this finds its claim gone and is not written
     */
    public record L2(Duration ttl, double ttlJitter, Duration tombstoneTtl) {
        public L2 {
            ttl = positive(ttl, Duration.ofMinutes(5), "tandem.cache.l2.ttl");
            requireJitter("tandem.cache.l2.ttl-jitter", ttlJitter);
            tombstoneTtl = positive(tombstoneTtl, Duration.ofSeconds(10), "tandem.cache.l2.tombstone-ttl");
        }
    }

    /**
     * @param keyPrefix           every key of the cache starts with it
     * @param commandTimeout      Lettuce command timeout (TimeoutOptions, CacheConfiguration); spring.data.redis.timeout,
     *                            the connection handshake's, stays longer and is not this
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
            commandTimeout = positive(commandTimeout, Duration.ofMillis(100), "tandem.cache.redis.command-timeout");
            connectTimeout = positive(connectTimeout, Duration.ofMillis(500), "tandem.cache.redis.connect-timeout");
            breakerOpenDuration = positive(breakerOpenDuration, Duration.ofSeconds(1), "tandem.cache.redis.breaker-open-duration");
        }
    }

    public CacheProperties {
        mode = mode == null ? CacheMode.HYBRID : mode;
        l1 = l1 == null ? new L1(null, null, null, 0.1, null, null) : l1;
        l2 = l2 == null ? new L2(null, 0.1, null) : l2;
        redis = redis == null ? new Redis(null, null, null, null) : redis;
        stalenessBound = positive(stalenessBound, Duration.ofSeconds(1), "tandem.cache.staleness-bound");
        log = log == null ? new Log(null, null, null) : log;
        instanceId = instanceId == null || instanceId.isBlank() ? UUID.randomUUID().toString() : instanceId;
        // A longer one started, and then the follower's note of itself failed every few seconds ("Data
        // too long"): a WARN that L1 is not served each time, and no entry among its peers' followers.
        if (instanceId.codePointCount(0, instanceId.length()) > MOST_INSTANCE_ID_CHARACTERS) {
            throw new IllegalArgumentException(Settings.named("tandem.cache.instance-id") + " must be at most "
                    + MOST_INSTANCE_ID_CHARACTERS + " characters (its column in cache_followers), got "
                    + instanceId.codePointCount(0, instanceId.length()));
        }
        // L1 stays served only while a pass over the log completes within every bound.
        if (stalenessBound.compareTo(log.pollInterval().multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("tandem.cache.staleness-bound (" + stalenessBound
                    + ") must be at least twice tandem.cache.log.poll-interval (" + log.pollInterval() + ")");
        }
        if (log.retention().compareTo(stalenessBound.multipliedBy(10)) < 0) {
            throw new IllegalArgumentException("tandem.cache.log.retention (" + log.retention()
                    + ") must be at least ten times tandem.cache.staleness-bound (" + stalenessBound + ")");
        }
    }

    /** A jitter of 1 or more would allow lifetimes of zero (or below). */
    private static void requireJitter(String property, double jitter) {
        if (jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException(Settings.named(property) + " must be in [0, 1), got " + jitter);
        }
    }

    /** {@code value}, or {@code fallback} when it is not set; zero or less stops the service ({@link Settings#requirePositive}). */
    private static Duration positive(Duration value, Duration fallback, String property) {
        return value == null ? fallback : Settings.requirePositive(value, property);
    }
}
