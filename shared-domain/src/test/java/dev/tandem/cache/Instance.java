package dev.tandem.cache;

import dev.tandem.DomainTestApplication;
import dev.tandem.group.GroupQueries;
import dev.tandem.group.GroupService;
import dev.tandem.seed.SeedData;
import dev.tandem.user.UserService;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One instance of the domain — its own application context, connection pool, L1, Redis
 * connections and instance id — on this module's test database and Redis key prefix. Several of
 * them in one JVM are several service instances sharing MariaDB and Redis. Started once per name
 * and kept for the whole test run (a context takes seconds to start), closed when the JVM exits.
 */
final class Instance {

    private static final Map<String, Instance> RUNNING = new ConcurrentHashMap<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.values().forEach(i -> i.context.close())));
    }

    static String dbName() {
        return System.getProperty("tandem.test.db-name", "tandem_test");
    }

    static String keyPrefix() {
        return "tandem:cache:" + dbName() + ":";
    }

    /** The instance called {@code name}, started in {@code mode} the first time it is asked for. */
    static Instance named(String name, CacheMode mode) {
        Instance instance = RUNNING.computeIfAbsent(name, n -> start(n, mode));
        if (instance.cache.mode() != mode) {
            throw new IllegalStateException(name + " already runs in " + instance.cache.mode());
        }
        return instance;
    }

    /** The instance every test compares against: mode none, so it reads MySQL every time. */
    static Instance reference() {
        return named("reference", CacheMode.NONE);
    }

    /** Starts {@code name} without waiting for its cache to be healthy (e.g. while Redis is down). */
    static Instance startUnhealthy(String name, CacheMode mode) {
        return RUNNING.computeIfAbsent(name, n -> launch(n, mode));
    }

    private static Instance start(String name, CacheMode mode, String... extra) {
        Instance instance = launch(name, mode, extra);
        instance.awaitHealthy();
        return instance;
    }

    private static Instance launch(String name, CacheMode mode, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                // Command-line arguments, because they outrank tandem-domain.yml (default
                // properties would not).
                "--tandem.db.name=" + dbName(),
                "--tandem.db.pool-size=4",
                "--tandem.seed.mode=off",
                "--tandem.cache.mode=" + mode.name().toLowerCase(),
                "--tandem.cache.instance-id=" + name + "-" + Long.toHexString(System.nanoTime()),
                "--tandem.cache.redis.key-prefix=" + keyPrefix(),
                "--spring.main.banner-mode=off"));
        args.addAll(List.of(extra));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(DomainTestApplication.class)
                .web(WebApplicationType.NONE)
                .run(args.toArray(String[]::new));
        return new Instance(name, context);
    }

    final String name;
    final ConfigurableApplicationContext context;
    final GroupService groups;
    final UserService users;
    final TieredCache cache;
    final SeedData seed;
    final JdbcClient jdbc;
    final GroupQueries queries;

    private Instance(String name, ConfigurableApplicationContext context) {
        this.name = name;
        this.context = context;
        this.groups = context.getBean(GroupService.class);
        this.users = context.getBean(UserService.class);
        this.cache = context.getBean(TieredCache.class);
        this.seed = context.getBean(SeedData.class);
        this.jdbc = context.getBean(JdbcClient.class);
        this.queries = context.getBean(GroupQueries.class);
    }

    /**
     * Loads the seed data afresh through this instance, then waits until every other running
     * instance has applied the flush that the reset published (it arrives asynchronously, within
     * the staleness bound), so that a test starts from the same state everywhere.
     */
    void resetData() {
        for (Instance other : RUNNING.values()) {
            other.awaitHealthy();
        }
        seed.reset(1);
        for (Instance other : RUNNING.values()) {
            if (other.cache.l1() != null && !Servers.await(other.cache.stalenessBound().multipliedBy(2),
                    () -> other.cache.l1().size() == 0)) {
                throw new AssertionError(other + " did not flush its L1 after the reset: " + other.cache.status());
            }
        }
        awaitQuiet();
    }

    /**
     * Waits until no running instance has flushed its L1 for a few heartbeats. A test that
     * disturbed the channel (a cut subscription, a lost message) leaves flushes that the next
     * heartbeats still reveal; they are right, but they would empty the next test's L1 under it.
     */
    static void awaitQuiet() {
        java.util.function.Supplier<Double> flushes = () -> RUNNING.values().stream()
                .mapToDouble(i -> i.cache.metrics().flushCounts().values().stream().mapToDouble(Double::doubleValue).sum())
                .sum();
        long quietNanos = java.time.Duration.ofMillis(800).toNanos();
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        double seen = flushes.get();
        long since = System.nanoTime();
        while (System.nanoTime() - since < quietNanos) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("L1 flushes did not stop");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            double now = flushes.get();
            if (now != seen) {
                seen = now;
                since = System.nanoTime();
            }
        }
    }

    /**
     * Waits until the cache is fully up: subscribed, its own heartbeat back (so L1 is served), the
     * breaker closed and L2 clean. A freshly started instance, or one after a Redis outage, gets
     * there by itself within a few heartbeats.
     */
    void awaitHealthy() {
        if (cache.mode() == CacheMode.NONE) {
            return;
        }
        boolean healthy = Servers.await(java.time.Duration.ofSeconds(60), () ->
                (!cache.mode().usesL1() || cache.l1Trusted())
                        && cache.redis().breaker().getState() == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED
                        && !cache.l2Dirty());
        if (!healthy) {
            throw new AssertionError(this + " did not become healthy: " + cache.status());
        }
    }

    RedisConnectionFactory redis() {
        return context.getBean(RedisConnectionFactory.class);
    }

    @Override
    public String toString() {
        return name + "(" + cache.mode() + ")";
    }
}
