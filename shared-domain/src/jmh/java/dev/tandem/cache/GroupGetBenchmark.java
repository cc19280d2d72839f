package dev.tandem.cache;

import dev.tandem.DomainTestApplication;
import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupService;
import dev.tandem.group.GroupView;
import dev.tandem.seed.SeedData;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.concurrent.TimeUnit;

/**
 * What one {@code GroupService.get} costs per cache level, on loopback against the project-local
 * MariaDB and Redis (its own database tandem_bench_domain and key prefix tandem:cache:jmh-domain:):
 * <ul>
 *   <li>{@code none}: mode none, two queries in a read-only transaction every time;</li>
 *   <li>{@code l1-hit}: mode hybrid, the entry in Caffeine;</li>
 *   <li>{@code l2-hit}: mode redis, one GET and a protobuf decode;</li>
 *   <li>{@code miss}: mode hybrid with the entry removed from L1 and L2 before each call: L1 miss,
 *       L2 miss, the queries, the L2 fill (SET NX) and the L1 store.</li>
 * </ul>
 * Run: {@code ./mvnw -B -pl shared-domain -Pjmh test-compile exec:exec}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class GroupGetBenchmark {

    private static final long ID = 7;

    @Param({"none", "l1-hit", "l2-hit", "miss"})
    public String scenario;

    private ConfigurableApplicationContext context;
    private GroupService groups;
    private TieredCache cache;
    private String l2Key;

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        CacheMode mode = switch (scenario) {
            case "none" -> CacheMode.NONE;
            case "l2-hit" -> CacheMode.REDIS;
            default -> CacheMode.HYBRID;
        };
        context = new SpringApplicationBuilder(DomainTestApplication.class)
                .web(WebApplicationType.NONE)
                .run("--tandem.db.name=tandem_bench_domain", "--tandem.db.pool-size=4", "--tandem.seed.mode=off",
                        "--tandem.cache.mode=" + mode.name().toLowerCase(), "--tandem.cache.redis.key-prefix=tandem:cache:jmh-domain:",
                        "--spring.main.banner-mode=off", "--logging.level.root=WARN");
        groups = context.getBean(GroupService.class);
        cache = context.getBean(TieredCache.class);
        context.getBean(SeedData.class).reset(1);
        if (mode.usesL1()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!cache.l1Trusted() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            if (!cache.l1Trusted()) {
                throw new IllegalStateException("L1 not served: " + cache.status());
            }
        }
        l2Key = mode.usesL2() ? cache.l2().keyedKey(GroupCaches.GROUP, ID) : null;
        groups.get(ID);
    }

    @Setup(Level.Invocation)
    public void evict() {
        if (scenario.equals("miss")) {
            cache.l1().invalidate(GroupCaches.group(ID));
            cache.redis().delete(l2Key);
        }
    }

    @Benchmark
    public GroupView get() {
        return groups.get(ID);
    }

    @TearDown(Level.Trial)
    public void stop() {
        System.out.println();
        System.out.println("[" + scenario + "] cache status: " + cache.status().get("caches"));
        context.close();
    }
}
