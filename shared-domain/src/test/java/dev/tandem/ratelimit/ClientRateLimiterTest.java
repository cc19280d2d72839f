package dev.tandem.ratelimit;

import dev.tandem.auth.AuthProperties;
import dev.tandem.auth.BadTokens;
import dev.tandem.auth.DevTokens;
import dev.tandem.auth.WriteAccess;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.ratelimit.ClientRateLimiter.Wire;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.tandem.testsupport.DomainSettings;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The rate-limit rule, once: burst, refill, the retry delay, which client a request counts
 * against, exemptions, the bound on clients kept, the refusal counter, the settings. Time is a
 * ticker the test moves; nothing sleeps.
 */
class ClientRateLimiterTest {

    private static final String PEER = "192.0.2.10";
    private static final String OTHER_PEER = "192.0.2.11";
    private static final WriteAccess AUTH = new WriteAccess(new AuthProperties(true, null), Clock.systemUTC());

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** 2 requests/s (one token per 500 ms), bursts of 3. */
    private ClientRateLimiter limiter(List<String> exemptSubjects, List<String> exemptAddresses, int maxClients) {
        return new ClientRateLimiter(new RateLimitProperties(true, 2, 3, exemptSubjects, exemptAddresses, maxClients),
                AUTH, registry, nanos::get);
    }

    private ClientRateLimiter limiter() {
        return limiter(List.of(), List.of(), 1000);
    }

    private static String bearer(String subject) {
        return "Bearer " + DevTokens.mintFor(subject, DevTokens.DEV_SECRET, Duration.ofHours(1));
    }

    private static boolean admitted(ClientRateLimiter limiter, String authorization, String peer) {
        try {
            limiter.admit(Wire.REST, authorization, peer);
            return true;
        } catch (DomainException refused) {
            return false;
        }
    }

    private static int admittedOf(ClientRateLimiter limiter, int requests, String authorization, String peer) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            admitted += admitted(limiter, authorization, peer) ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void aClientGetsItsBurstThenIsRefusedWithTheTimeToTheNextTokenRoundedUp() {
        ClientRateLimiter limiter = limiter();
        assertThat(admittedOf(limiter, 3, null, PEER)).isEqualTo(3);

        DomainException refused = catchThrowableOfType(DomainException.class, () -> limiter.admit(Wire.GRPC, null, PEER));

        assertThat(refused.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
        // The next token is 500 ms away: whole seconds, rounded up, so waiting that long is enough.
        assertThat(refused.retryAfter()).contains(Duration.ofSeconds(1));
        assertThat(refused.metadata()).isEqualTo(Map.of("requestsPerSecond", "2", "burst", "3"));
        assertThat(refused.getMessage()).contains("2 requests per second", "bursts of up to 3");
    }

    @Test
    void theBucketRefillsAtTheRateAndNeverAboveTheBurst() {
        ClientRateLimiter limiter = limiter();
        assertThat(admittedOf(limiter, 4, null, PEER)).isEqualTo(3);

        nanos.addAndGet(Duration.ofMillis(499).toNanos());
        assertThat(admitted(limiter, null, PEER)).as("before the next token").isFalse();
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(admitted(limiter, null, PEER)).as("one token after 500 ms").isTrue();
        assertThat(admitted(limiter, null, PEER)).isFalse();

        nanos.addAndGet(Duration.ofHours(1).toNanos());
        assertThat(admittedOf(limiter, 10, null, PEER)).as("an idle hour still buys only the burst").isEqualTo(3);
    }

    @Test
    void aSlowRateGivesARetryDelayOfManySeconds() {
        ClientRateLimiter limiter = new ClientRateLimiter(
                new RateLimitProperties(true, 0.1, 1, List.of(), List.of(), 10), AUTH, registry, nanos::get);
        limiter.admit(Wire.REST, null, PEER);
        nanos.addAndGet(Duration.ofMillis(2500).toNanos());

        DomainException refused = catchThrowableOfType(DomainException.class, () -> limiter.admit(Wire.REST, null, PEER));

        assertThat(refused.retryAfter()).contains(Duration.ofSeconds(8));   // 7.5 s rounded up
    }

    @Test
    void eachClientHasItsOwnBucket() {
        ClientRateLimiter limiter = limiter();
        assertThat(admittedOf(limiter, 5, null, PEER)).isEqualTo(3);
        assertThat(admittedOf(limiter, 5, bearer("alice"), PEER)).as("a token holder on the same address").isEqualTo(3);
        assertThat(admittedOf(limiter, 5, null, OTHER_PEER)).as("another address").isEqualTo(3);
        assertThat(admittedOf(limiter, 5, bearer("bob"), PEER)).as("another subject").isEqualTo(3);
    }

    /**
     * The name a client is counted under, which the watches' per-client cap takes too: on or off,
     * the subject of a token that verifies, else the address (an IPv6 one cut to its prefix), and
     * nothing a client writes can be taken for another kind of name.
     */
    @Test
    void aClientIsNamedByItsVerifiedSubjectElseItsAddressWhetherOrNotTheLimitIsOn() {
        ClientRateLimiter off = new ClientRateLimiter(new RateLimitProperties(false, 1, 1, null, null, 10),
                AUTH, registry, nanos::get);
        for (ClientRateLimiter limiter : List.of(limiter(), off)) {
            assertThat(limiter.clientOf(bearer("alice"), PEER)).isEqualTo("sub:alice");
            assertThat(limiter.clientOf(null, PEER)).isEqualTo("addr:" + PEER);
            assertThat(limiter.clientOf(BadTokens.unauthenticated().values().iterator().next(), PEER))
                    .as("a token that does not verify").isEqualTo("addr:" + PEER);
            assertThat(limiter.clientOf(null, "2001:db8:1:2:ffff::9")).isEqualTo("addr:2001:db8:1:2:0:0:0:0/64");
            assertThat(limiter.clientOf(null, "0:0:0:0:0:0:0:1")).isEqualTo(limiter.clientOf(null, "::1"));
        }
        assertThat(off.trackedClients()).as("naming a client counts nothing").isZero();
    }

    @Test
    void aVerifiedTokenIsOneClientWhereverItConnectsFrom() {
        ClientRateLimiter limiter = limiter();
        String alice = bearer("alice");
        assertThat(admitted(limiter, alice, PEER)).isTrue();
        assertThat(admitted(limiter, alice, OTHER_PEER)).isTrue();
        assertThat(admitted(limiter, bearer("alice"), "2001:db8::1")).as("another token of the same subject").isTrue();
        assertThat(admitted(limiter, alice, PEER)).isFalse();
    }

    @Test
    void aTokenThatDoesNotVerifyCountsAgainstTheAddress() {
        ClientRateLimiter limiter = limiter();
        List<String> bad = List.copyOf(BadTokens.unauthenticated().values());
        assertThat(admitted(limiter, bad.get(0), PEER)).isTrue();
        assertThat(admitted(limiter, bad.get(1), PEER)).isTrue();
        assertThat(admitted(limiter, bad.get(2), PEER)).isTrue();
        assertThat(admitted(limiter, null, PEER)).as("the address's bucket is what they used").isFalse();
        assertThat(admitted(limiter, bearer("carol"), PEER)).isTrue();
    }

    @Test
    void withAuthOffATokenIsNotTrustedAndTheAddressIsTheClient() {
        WriteAccess authOff = new WriteAccess(new AuthProperties(false, null), Clock.systemUTC());
        ClientRateLimiter limiter = new ClientRateLimiter(
                new RateLimitProperties(true, 2, 3, List.of("alice"), List.of(), 10), authOff, registry, nanos::get);
        assertThat(admittedOf(limiter, 2, bearer("alice"), PEER) + admittedOf(limiter, 2, bearer("bob"), PEER))
                .isEqualTo(3);
    }

    @Test
    void addressesAreOneClientWhateverTheirSpelling() {
        ClientRateLimiter limiter = limiter();
        assertThat(admitted(limiter, null, "0:0:0:0:0:0:0:1")).isTrue();
        assertThat(admitted(limiter, null, "::1")).isTrue();
        assertThat(admitted(limiter, null, "0::1")).isTrue();
        assertThat(admitted(limiter, null, "::1")).isFalse();
        // A peer that is no IP address (a Unix socket) is still one client.
        assertThat(admittedOf(limiter, 4, null, "/run/tandem.sock")).isEqualTo(3);
    }

    @Test
    void anExemptSubjectIsNeverRefusedNorCounted() {
        ClientRateLimiter limiter = limiter(List.of("bench"), List.of(), 1000);
        assertThat(admittedOf(limiter, 1000, bearer("bench"), PEER)).isEqualTo(1000);
        assertThat(admittedOf(limiter, 4, null, PEER)).as("the address was not charged").isEqualTo(3);
        assertThat(admittedOf(limiter, 4, bearer("not-bench"), PEER)).isEqualTo(3);
        assertThat(limiter.trackedClients()).isEqualTo(2);
    }

    @Test
    void exemptAddressesAreExactIpsOrCidrRangesOfEitherFamily() {
        ClientRateLimiter limiter = limiter(List.of(), List.of("127.0.0.1", "10.1.0.0/16", "fd00::/8", "::1", "198.51.100.0/25"), 1000);
        for (String exempt : List.of("127.0.0.1", "10.1.0.1", "10.1.255.254", "fd12:3456::1", "::1",
                "0:0:0:0:0:0:0:1", "::ffff:10.1.2.3", "198.51.100.127")) {
            assertThat(admittedOf(limiter, 50, bearer("someone"), exempt)).as(exempt).isEqualTo(50);
        }
        for (String limited : List.of("127.0.0.2", "10.2.0.1", "fe80::1", "::2", "198.51.100.128")) {
            assertThat(admittedOf(limiter, 5, null, limited)).as(limited).isEqualTo(3);
        }
    }

    @Test
    void aSettingThatIsNoAddressStopsTheStart() {
        for (String wrong : List.of("localhost", "10.0.0.0/33", "::/129", "10.0.0.0/x", "300.1.1.1")) {
            assertThatThrownBy(() -> limiter(List.of(), List.of(wrong), 10)).as(wrong)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exempt-addresses");
        }
        assertThatThrownBy(() -> new RateLimitProperties(true, 0, 3, null, null, 10))
                .hasMessageContaining("requests-per-second");
        assertThatThrownBy(() -> new RateLimitProperties(true, 1, 0, null, null, 10)).hasMessageContaining("burst");
        assertThatThrownBy(() -> new RateLimitProperties(true, 1, 1, null, null, 0)).hasMessageContaining("max-clients");
    }

    @Test
    void theClientsKeptAreBoundedAndIdleOnesAreForgotten() {
        ClientRateLimiter limiter = limiter(List.of(), List.of(), 100);
        for (int i = 0; i < 5_000; i++) {
            admitted(limiter, null, "10.0." + (i / 256) + "." + (i % 256));
        }
        assertThat(limiter.trackedClients()).isLessThanOrEqualTo(100);

        // Idle for as long as an empty bucket takes to fill (3 tokens x 500 ms): nothing is lost by forgetting it.
        nanos.addAndGet(Duration.ofMillis(1500).toNanos());
        assertThat(limiter.trackedClients()).isZero();
        assertThat(registry.get(ClientRateLimiter.CLIENTS_METER).gauge().value()).isZero();
    }

    @Test
    void refusalsAreCountedPerWire() {
        ClientRateLimiter limiter = limiter();
        admittedOf(limiter, 5, null, PEER);
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> limiter.admit(Wire.GRPC, null, PEER)).isInstanceOf(DomainException.class);
        }
        assertThat(registry.get(ClientRateLimiter.REFUSED_METER).tag("wire", "rest").counter().count()).isEqualTo(2);
        assertThat(registry.get(ClientRateLimiter.REFUSED_METER).tag("wire", "grpc").counter().count()).isEqualTo(3);
    }

    @Test
    void whenOffNothingIsRefusedOrKept() {
        ClientRateLimiter limiter = new ClientRateLimiter(new RateLimitProperties(false, 1, 1, null, null, 10),
                AUTH, registry, nanos::get);
        assertThat(admittedOf(limiter, 100, null, PEER)).isEqualTo(100);
        assertThat(limiter.trackedClients()).isZero();
    }

    @Test
    void theDefaultsAreOffAndEveryPropertyHasItsEnvironmentVariable() {
        RateLimitProperties defaults = DomainSettings.bind("tandem.rate-limit", RateLimitProperties.class);
        assertThat(defaults).isEqualTo(new RateLimitProperties(false, 100, 200, List.of(), List.of(), 100_000));

        assertThat(DomainSettings.bind("tandem.rate-limit", RateLimitProperties.class, Map.of(
                "TANDEM_RATE_LIMIT_ENABLED", "true",
                "TANDEM_RATE_LIMIT_REQUESTS_PER_SECOND", "0.5",
                "TANDEM_RATE_LIMIT_BURST", "7",
                "TANDEM_RATE_LIMIT_EXEMPT_SUBJECTS", "bench, ops",
                "TANDEM_RATE_LIMIT_EXEMPT_ADDRESSES", "127.0.0.1,::1",
                "TANDEM_RATE_LIMIT_MAX_CLIENTS", "50",
                "TANDEM_RATE_LIMIT_IPV6_PREFIX_LENGTH", "56")))
                .isEqualTo(new RateLimitProperties(true, 0.5, 7, List.of("bench", "ops"), List.of("127.0.0.1", "::1"), 50, 56));
        assertThatThrownBy(() -> new RateLimitProperties(true, 1, 1, null, null, 10, 0)).hasMessageContaining("ipv6-prefix-length");
    }

    /**
     * An IPv6 host is usually handed a whole /64: keyed by its full address, each of its 2^64
     * addresses started with a full bucket, so such a client was never limited. Its /64 is the
     * client; another /64 is another. Failed before: the second address of the /64 was admitted.
     */
    @Test
    void theAddressesOfOneIpv6Slash64AreOneClient() {
        ClientRateLimiter limiter = limiter();
        for (int i = 1; i <= 3; i++) {
            assertThat(admitted(limiter, null, "2001:db8:1:2::" + i)).as("request %d of the burst", i).isTrue();
        }
        assertThat(admitted(limiter, null, "2001:db8:1:2:ffff::9")).as("another address of the same /64").isFalse();
        assertThat(admitted(limiter, null, "2001:db8:1:3::1")).as("an address of another /64").isTrue();
        // Outside global unicast a /64 is a whole link (or a node's pods): each address is a client.
        for (int i = 1; i <= 3; i++) {
            assertThat(admitted(limiter, null, "fe80::" + i)).as("link-local request %d", i).isTrue();
        }
        assertThat(admitted(limiter, null, "fe80::9")).as("another link-local address").isTrue();
        assertThat(admitted(limiter, null, "fd00::9")).as("a unique-local address").isTrue();
    }
}
