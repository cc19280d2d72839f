package dev.tandem.ratelimit;

import dev.tandem.auth.BadTokens;
import dev.tandem.auth.DevTokens;
import org.junit.jupiter.api.DynamicTest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rate limit's wire behaviour as one table, which each service runs on its own wire
 * (RateLimitRestTest, RateLimitGrpcTest; they get this class from shared-domain's test-jar) against
 * a service started with {@link #PROPERTIES}: bursts of {@value #BURST} and one new token every
 * 1000 s, so that no token comes back while a test runs and the counts below are exact without
 * any timing. The rule itself (refill, exemption by address, bounded clients) is tested once, in
 * ClientRateLimiterTest; this table is what a client sees on the wire.
 *
 * <p>Rows use clients of their own (token subjects named after the row), so they do not depend on
 * each other or on their order; only the anonymous row uses the test's own address, once.
 */
public final class RateLimitScenarios {

    public static final int BURST = 3;
    public static final String EXEMPT_SUBJECT = "bench-client";
    /** One token per this many seconds: the most a refusal may ask a client to wait. */
    public static final long SECONDS_PER_TOKEN = 1000;

    /**
     * The service's settings for the table, one per line (as @TestPropertySource's properties take
     * them); the exempt addresses are not the test's own loopback.
     */
    public static final String PROPERTIES = """
            tandem.rate-limit.enabled=true
            tandem.rate-limit.requests-per-second=0.001
            tandem.rate-limit.burst=3
            tandem.rate-limit.exempt-subjects=bench-client
            tandem.rate-limit.exempt-addresses=192.0.2.1,2001:db8::/32
            """;

    private RateLimitScenarios() {
    }

    /** One wire as the table drives it. */
    public interface RateLimitedWire {

        /**
         * One API read ({@code authorization}: the Authorization value, null for none). Empty when it
         * was answered; when the rate limit refused it, the retry delay in seconds it carried, after
         * the wire has checked the refusal is well-formed (its status, problem+json or status
         * details) and counted once in its wire's refusal metric.
         */
        OptionalLong read(String authorization);

        /** Health, metrics (REST) / health and reflection (gRPC) all answer. */
        void unlimitedEndpointsAnswer();
    }

    /** Who sends a step's request. */
    sealed interface Client permits Subject, Anonymous, Forged {
        String authorization();
    }

    /** A token that verifies, of this subject (no scope: reads need none). */
    record Subject(String name) implements Client {
        @Override
        public String authorization() {
            return "Bearer " + DevTokens.mintFor(name, DevTokens.DEV_SECRET, Duration.ofHours(1));
        }
    }

    /** No token: the client is the peer address. */
    record Anonymous() implements Client {
        @Override
        public String authorization() {
            return null;
        }
    }

    /** A token signed with another secret: it does not verify, so the client is the peer address too. */
    record Forged() implements Client {
        @Override
        public String authorization() {
            return "Bearer " + DevTokens.mintFor("someone-else", BadTokens.OTHER_SECRET, Duration.ofHours(1));
        }
    }

    sealed interface Step permits Read, UnlimitedAnswer {
    }

    record Read(Client client, boolean admitted) implements Step {
        @Override
        public String toString() {
            return client + (admitted ? " admitted" : " refused");
        }
    }

    record UnlimitedAnswer() implements Step {
        @Override
        public String toString() {
            return "health/metrics/reflection answer";
        }
    }

    public record Scenario(String name, List<Step> steps) {
    }

    public static List<Scenario> all() {
        Subject under = new Subject("under-the-burst");
        Subject over = new Subject("over-the-burst");
        Subject a = new Subject("client-a");
        Subject b = new Subject("client-b");
        Subject exempt = new Subject(EXEMPT_SUBJECT);
        return List.of(
                new Scenario("a client within its burst is never refused", reads(under, BURST, true)),
                new Scenario("the request after the burst is refused with a retry delay",
                        concat(reads(over, BURST, true), reads(over, 2, false))),
                new Scenario("the limit is per client: B is unaffected by A's refusals", concat(
                        reads(a, BURST, true), reads(a, 1, false),
                        reads(b, BURST, true), reads(b, 1, false),
                        reads(a, 1, false))),
                new Scenario("an exempt subject is never refused", reads(exempt, 10 * BURST, true)),
                new Scenario("without a verified token the client is its address; health, metrics and reflection stay open",
                        concat(
                                reads(new Anonymous(), 1, true),
                                reads(new Forged(), 1, true),
                                reads(new Anonymous(), 1, true),
                                reads(new Anonymous(), 1, false),
                                reads(new Forged(), 1, false),
                                List.of(new UnlimitedAnswer()),
                                // A token holder on that same address is a client of its own.
                                reads(new Subject("token-holder-on-a-limited-address"), 1, true))));
    }

    /** Every row on {@code wire}, one test per row: a wire test's @TestFactory. */
    public static Stream<DynamicTest> on(RateLimitedWire wire) {
        return all().stream().map(row -> DynamicTest.dynamicTest(row.name(), () -> run(row, wire)));
    }

    /** Runs a row on a wire: every step as the row says, every refusal asking for a sane wait. */
    public static void run(Scenario scenario, RateLimitedWire wire) {
        List<Step> steps = scenario.steps();
        for (int i = 0; i < steps.size(); i++) {
            // Surefire's reports name dynamic tests by index: the message names the row.
            String step = scenario.name() + ", step " + (i + 1) + " (" + steps.get(i) + ")";
            switch (steps.get(i)) {
                case Read read -> {
                    OptionalLong refusedWithRetry = wire.read(read.client().authorization());
                    assertThat(refusedWithRetry.isEmpty()).as(step + " admitted").isEqualTo(read.admitted());
                    refusedWithRetry.ifPresent(seconds -> assertThat(seconds).as(step + " retry delay (s)")
                            .isBetween(1L, SECONDS_PER_TOKEN));
                }
                case UnlimitedAnswer unlimited -> wire.unlimitedEndpointsAnswer();
            }
        }
    }

    private static List<Step> reads(Client client, int count, boolean admitted) {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            steps.add(new Read(client, admitted));
        }
        return steps;
    }

    @SafeVarargs
    private static List<Step> concat(List<Step>... parts) {
        List<Step> all = new ArrayList<>();
        for (List<Step> part : parts) {
            all.addAll(part);
        }
        return all;
    }
}
