package dev.tandem.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.tandem.auth.WriteAccess;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rate limit, once for both wires: every client has a token bucket (Bucket4j) of
 * {@code burst} requests that refills at {@code requests-per-second}; a request finding it empty
 * is refused with RESOURCE_EXHAUSTED (REST 429) and the time until the next token as the retry
 * delay (REST Retry-After, gRPC RetryInfo), rounded up to whole seconds so both wires say the same.
 *
 * <p>A client is the subject of its bearer token when the token verifies ({@link WriteAccess}),
 * else its peer address: a token holder is one client wherever it connects from, and a forged or
 * expired token buys nothing (it counts against the address). Exempt clients (by subject, or by
 * address or CIDR range) are never counted; the address is checked first, so an exempt peer costs
 * no token verification.
 *
 * <p>Buckets live in a Caffeine cache bounded by {@code max-clients}; an entry idle for as long as
 * its bucket takes to refill completely is dropped, which loses nothing (a new bucket starts full).
 * Refusals are counted per wire ({@value #REFUSED_METER}{wire}), the buckets held are a gauge
 * ({@value #CLIENTS_METER}).
 */
public class ClientRateLimiter {

    public static final String REFUSED_METER = "tandem.ratelimit.refused";
    public static final String CLIENTS_METER = "tandem.ratelimit.clients";

    /** The protocol a request came over: the refusal counter's {@code wire} tag. */
    public enum Wire {
        REST, GRPC;

        String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final Logger log = LoggerFactory.getLogger(ClientRateLimiter.class);

    /** The prefixes of a client's name ({@link #clientOf}): no subject can be taken for an address. */
    private static final String SUBJECT = "sub:";
    private static final String ADDRESS = "addr:";

    private final RateLimitProperties properties;
    private final WriteAccess writeAccess;
    private final Ticker ticker;
    private final Set<String> exemptSubjects;
    private final List<AddressRange> exemptAddresses;
    private final Cache<String, Bucket> buckets;
    private final Map<Wire, Counter> refusals = new EnumMap<>(Wire.class);
    private final Map<String, String> refusalMetadata;

    /** {@code ticker}: the time the buckets refill and idle clients expire by (Ticker.systemTicker() in service). */
    public ClientRateLimiter(RateLimitProperties properties, WriteAccess writeAccess, MeterRegistry registry,
                             Ticker ticker) {
        this.properties = properties;
        this.writeAccess = writeAccess;
        this.ticker = ticker;
        // As clients are named, so that a request's name is all admit looks up.
        this.exemptSubjects = properties.exemptSubjects().stream().map(subject -> SUBJECT + subject)
                .collect(Collectors.toUnmodifiableSet());
        this.exemptAddresses = properties.exemptAddresses().stream()
                .filter(entry -> !entry.isBlank()).map(AddressRange::parse).toList();
        this.buckets = Caffeine.newBuilder()
                // upkeep on the caller's thread, not a pool's thread woken per drain (see L1Tier)
                .executor(Runnable::run)
                .maximumSize(properties.maxClients())
                .expireAfterAccess(timeToRefill())
                .ticker(ticker)
                .build();
        for (Wire wire : Wire.values()) {
            refusals.put(wire, Counter.builder(REFUSED_METER)
                    .description("Requests refused by the per-client rate limit")
                    .tag("wire", wire.tag())
                    .register(registry));
        }
        Gauge.builder(CLIENTS_METER, buckets, Cache::estimatedSize)
                .description("Clients whose rate-limit bucket is held")
                .register(registry);
        this.refusalMetadata = Map.of(
                "requestsPerSecond", rate(properties.requestsPerSecond()),
                "burst", String.valueOf(properties.burst()));
        if (properties.enabled()) {
            log.info("Rate limit on: {} requests/s per client, bursts of {}; exempt subjects {}, exempt addresses {}",
                    rate(properties.requestsPerSecond()), properties.burst(), properties.exemptSubjects(),
                    properties.exemptAddresses());
        }
    }

    public boolean enabled() {
        return properties.enabled();
    }

    /**
     * Returns when the client may have this request (counting it), throws RESOURCE_EXHAUSTED with a
     * retry delay when its bucket is empty. {@code authorization}: the request's Authorization value
     * (null when absent); {@code peer}: the connection's remote IP address as text.
     */
    public void admit(Wire wire, @Nullable String authorization, String peer) {
        if (!properties.enabled()) {
            return;
        }
        Optional<InetAddress> address = AddressRange.address(peer);
        if (address.isPresent() && isExempt(address.get())) {
            return;
        }
        String key = clientOf(authorization, peer, address);
        if (exemptSubjects.contains(key)) {
            return;
        }
        ConsumptionProbe probe = buckets.get(key, k -> newBucket()).tryConsumeAndReturnRemaining(1);
        if (!probe.isConsumed()) {
            refusals.get(wire).increment();
            // Whole seconds on both wires, so that they say the same (REST's Retry-After has no finer unit).
            Duration retryAfter = Duration.ofSeconds(
                    DomainException.wholeSecondsAtLeastOne(Duration.ofNanos(probe.getNanosToWaitForRefill())));
            throw new DomainException(ErrorCode.RESOURCE_EXHAUSTED,
                    "too many requests: this client may send " + refusalMetadata.get("requestsPerSecond")
                            + " requests per second in bursts of up to " + properties.burst()
                            + "; retry after " + retryAfter.toSeconds() + " s",
                    List.of(), null, null, retryAfter, refusalMetadata, null);
        }
    }

    /**
     * The client a request counts as: {@code sub:<subject>} of its bearer token when the token
     * verifies, else {@code addr:<address>} of its peer (a global IPv6 address cut to its prefix, see
     * {@link #client}). Whether or not the limit is on, so that whatever else counts per client (the
     * group watches) names a client as the limit does. {@code authorization}: the request's
     * Authorization value (null when absent); {@code peer}: the connection's remote IP address as text.
     */
    public String clientOf(@Nullable String authorization, String peer) {
        return clientOf(authorization, peer, AddressRange.address(peer));
    }

    /** {@link #clientOf(String, String)} with the peer parsed already (admit needs it first, for the exempt ranges). */
    private String clientOf(@Nullable String authorization, String peer, Optional<InetAddress> address) {
        // Prefixed, so no subject can share an address's bucket; an address in its canonical text.
        return writeAccess.verifiedSubject(authorization).map(subject -> SUBJECT + subject)
                .orElseGet(() -> ADDRESS + address.map(this::client).orElse(peer));
    }

    /**
     * The client an address stands for: a global unicast IPv6 address (2000::/3) its first
     * {@code ipv6-prefix-length} bits (a host commonly holds a whole /64 and could take a fresh
     * bucket per address otherwise); any other address itself (IPv4; link-local, unique-local and
     * loopback IPv6, where a /64 is a whole link or a node's pods, not one host). IPv4-mapped IPv6
     * addresses arrive as IPv4 already.
     */
    String client(InetAddress address) {
        if (!(address instanceof Inet6Address) || (address.getAddress()[0] & 0xE0) != 0x20) {
            return address.getHostAddress();
        }
        byte[] bytes = address.getAddress();
        int prefix = properties.ipv6PrefixLength();
        for (int bit = prefix; bit < 128; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        try {
            return InetAddress.getByAddress(bytes).getHostAddress() + "/" + prefix;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 16 bytes are always an address
        }
    }

    /** How many clients have a bucket now (after pending evictions): bounded by max-clients. */
    long trackedClients() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }

    private boolean isExempt(InetAddress address) {
        for (AddressRange range : exemptAddresses) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    private Bucket newBucket() {
        return Bucket.builder()
                .addLimit(limit -> limit.capacity(properties.burst()).refillGreedy(1, nanosPerToken()))
                .withCustomTimePrecision(new TickerTime(ticker))
                .build();
    }

    /** One token per 1/rate seconds (nanosecond precision: a rate below 1/s is a period above 1 s). */
    private Duration nanosPerToken() {
        return Duration.ofNanos(Math.max(1, Math.round(1_000_000_000d / properties.requestsPerSecond())));
    }

    /** How long an empty bucket takes to be full again: after that, forgetting it changes nothing. */
    private Duration timeToRefill() {
        return nanosPerToken().multipliedBy(properties.burst());
    }

    /** 100 rather than 100.0; 0.5 as it is. */
    static String rate(double requestsPerSecond) {
        return requestsPerSecond == Math.rint(requestsPerSecond) && requestsPerSecond < Long.MAX_VALUE
                ? String.valueOf((long) requestsPerSecond) : String.valueOf(requestsPerSecond);
    }

    /** The buckets' clock: the same ticker as the cache's, so tests can move time for both. */
    private record TickerTime(Ticker ticker) implements TimeMeter {

        @Override
        public long currentTimeNanos() {
            return ticker.read();
        }

        @Override
        public boolean isWallClockBased() {
            return false;
        }
    }
}
