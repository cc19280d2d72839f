package dev.tandem.ratelimit;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.tandem.auth.AuthProperties;
import dev.tandem.auth.DevTokens;
import dev.tandem.auth.WriteAccess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What {@link ClientRateLimiter#admit} adds to one request, per path through it (no server, no
 * database):
 * <ul>
 *   <li>{@code off}: tandem.rate-limit.enabled=false;</li>
 *   <li>{@code exempt-address}: the bench's case, a loopback peer in exempt-addresses;</li>
 *   <li>{@code anonymous}: an address's bucket (a rate no request reaches);</li>
 *   <li>{@code token}: a bearer token verified (HS256) and its subject's bucket.</li>
 * </ul>
 * Run: {@code ./mvnw -B -pl shared-domain -Pjmh test-compile exec:exec -Djmh.args="RateLimitBenchmark"}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RateLimitBenchmark {

    @Param({"off", "exempt-address", "anonymous", "token"})
    public String path;

    private ClientRateLimiter limiter;
    private String authorization;

    @Setup
    public void setUp() {
        RateLimitProperties properties = new RateLimitProperties(!path.equals("off"), 1e9, 1_000_000, List.of(),
                List.of("127.0.0.1", "::1"), 100_000);
        limiter = new ClientRateLimiter(properties, new WriteAccess(new AuthProperties(true, null), Clock.systemUTC()),
                new SimpleMeterRegistry(), Ticker.systemTicker());
        authorization = path.equals("token")
                ? "Bearer " + DevTokens.mintFor("client", DevTokens.DEV_SECRET, Duration.ofHours(1)) : null;
    }

    @Benchmark
    public void admit() {
        limiter.admit(ClientRateLimiter.Wire.REST, authorization, path.equals("exempt-address") ? "127.0.0.1" : "192.0.2.10");
    }
}
