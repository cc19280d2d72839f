package dev.tandem.cache;

import dev.tandem.DomainTestApplication;
import dev.tandem.group.GroupQueries;
import dev.tandem.group.GroupService;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.Await;
import dev.tandem.user.UserService;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One instance of the domain — its own application context, connection pool, L1, Redis
 * connections and instance id — on this module's test database and Redis key prefix. Several of
 * them in one JVM are several service instances sharing MariaDB and Redis. Started once per name
 * and kept for the whole test run (a context takes seconds to start), closed when the JVM exits.
 */
final class Instance {

    private static final Map<String, Instance> RUNNING = new ConcurrentHashMap<>();

    /**
     * Which Redis the instances of a test talk to: the one of spring.data.redis.host/port (the
     * default), or another deployment (a Redis Cluster, ...) given by Spring properties alone.
     * Instances are kept per target: "hybrid-a" on the cluster is another instance than
     * "hybrid-a" on the single Redis.
     *
     * @param name       appended to the instances' names ("" for the default)
     * @param properties Spring properties (command-line form, "--key=value") that select it
     */
    record RedisTarget(String name, List<String> properties) {
        static final RedisTarget DEFAULT = new RedisTarget("", List.of());

        String qualify(String instance) {
            return name.isEmpty() ? instance : instance + "@" + name;
        }

        boolean owns(String qualifiedName) {
            return name.isEmpty() ? !qualifiedName.contains("@") : qualifiedName.endsWith("@" + name);
        }
    }

    private static volatile RedisTarget target = RedisTarget.DEFAULT;

    /** Instances started from now on (and those named from now on) use {@code redis}. */
    static void useRedis(RedisTarget redis) {
        target = redis;
    }

    /**
     * Back to the default Redis, after closing every instance of {@code redis} (before it goes
     * away). The other target's tests changed the database behind the default instances' caches,
     * so those are flushed.
     */
    static void closeAndUseDefault(RedisTarget redis) {
        target = RedisTarget.DEFAULT;
        RUNNING.entrySet().removeIf(e -> {
            if (redis.owns(e.getKey()) && !e.getKey().equals("reference")) {
                e.getValue().context.close();
                return true;
            }
            return false;
        });
        for (Instance i : RUNNING.values()) {
            i.cache.flushAll("test-redis-target-changed");
        }
    }

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
        return named(name, mode, List.of());
    }

    /**
     * The instance called {@code name}, started in {@code mode} with {@code properties} (Spring
     * properties in command-line form, "--key=value", e.g. another database port) the first time it
     * is asked for.
     */
    static Instance named(String name, CacheMode mode, List<String> properties) {
        RedisTarget redis = target;
        Instance instance = RUNNING.computeIfAbsent(redis.qualify(name), n -> start(n, mode, redis, properties, null));
        if (instance.cache.mode() != mode) {
            throw new IllegalStateException(name + " already runs in " + instance.cache.mode());
        }
        return instance;
    }

    /**
     * As {@link #named(String, CacheMode, List)}, with {@code clock} instead of the system's (the
     * application's {@code Clock} bean: what the domain and the cache take the time from), for a
     * test of clocks that disagree. Close it at the end of the test.
     */
    static Instance withClock(String name, CacheMode mode, List<String> properties, Clock clock) {
        RedisTarget redis = target;
        return RUNNING.computeIfAbsent(redis.qualify(name), n -> start(n, mode, redis, properties, clock));
    }

    /** The instance every test compares against: mode none, so it reads MySQL every time. */
    static Instance reference() {
        // Mode none never asks Redis: one reference serves every target.
        return RUNNING.computeIfAbsent("reference", n -> start(n, CacheMode.NONE, RedisTarget.DEFAULT, List.of(), null));
    }

    /** Starts {@code name} without waiting for its cache to be healthy (e.g. while Redis is down). */
    static Instance startUnhealthy(String name, CacheMode mode) {
        RedisTarget redis = target;
        return RUNNING.computeIfAbsent(redis.qualify(name), n -> launch(n, mode, redis, List.of(), null));
    }

    private static Instance start(String name, CacheMode mode, RedisTarget redis, List<String> properties,
                                  @Nullable Clock clock) {
        Instance instance = launch(name, mode, redis, properties, clock);
        instance.awaitHealthy();
        return instance;
    }

    private static Instance launch(String name, CacheMode mode, RedisTarget redis, List<String> properties,
                                   @Nullable Clock clock) {
        List<String> args = new ArrayList<>(List.of(
                // Command-line arguments, because they outrank tandem-domain.yml (default
                // properties would not).
                "--tandem.db.name=" + dbName(),
                "--tandem.db.pool-size=4",
                "--tandem.seed.mode=off",
                "--tandem.cache.mode=" + mode.name().toLowerCase(),
                "--tandem.cache.instance-id=" + name.replace('@', '-') + "-" + Long.toHexString(System.nanoTime()),
                "--tandem.cache.redis.key-prefix=" + keyPrefix(),
                // Names its Redis connections (CLIENT LIST), so a test can find them.
                "--spring.data.redis.client-name=" + name.replace('@', '-'),
                "--spring.main.banner-mode=off"));
        args.addAll(redis.properties());
        args.addAll(properties);
        // A property given twice on the command line would bind as both values joined ("a,b"): the
        // test's own (e.g. another database's name) replaces the default of the same name.
        Map<String, String> byName = new java.util.LinkedHashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            byName.put(equals < 0 ? arg : arg.substring(0, equals), arg);
        }
        args = new ArrayList<>(byName.values());
        SpringApplicationBuilder application = new SpringApplicationBuilder(DomainTestApplication.class)
                .web(WebApplicationType.NONE);
        if (clock != null) {
            // Replaces the configuration's "clock" bean once the configuration classes have defined it.
            application.initializers(context -> context.addBeanFactoryPostProcessor(beans -> {
                ((BeanDefinitionRegistry) beans).removeBeanDefinition("clock");
                beans.registerSingleton("clock", clock);
            }));
        }
        ConfigurableApplicationContext context = application.run(args.toArray(String[]::new));
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
        List<Instance> peers = sameTarget();
        for (Instance other : peers) {
            other.awaitHealthy();
        }
        seed.reset(1);
        if (!cache.followsLog()) {
            // Mode none keeps no invalidation log, so its reset's flush reaches no other instance:
            // the rows changed behind the caches of those that earlier tests left running. One of
            // them flushes every instance's L1 (and L2) through the log.
            peers.stream().filter(other -> other.cache.followsLog()).findFirst()
                    .ifPresent(other -> other.cache.flushAll("test-reset-through-mode-none"));
        }
        for (Instance other : peers) {
            if (other.cache.l1() != null && !Await.within(other.cache.stalenessBound().multipliedBy(2),
                    () -> other.cache.l1().size() == 0)) {
                throw new AssertionError(other + " did not flush its L1 after the reset: " + other.cache.status());
            }
        }
        awaitQuiet();
    }

    /**
     * Waits until no running instance has flushed its L1 for a while: a flush that the log still
     * carries (a reset, the admin endpoint) reaches each follower within a pass, and would empty
     * the next test's L1 under it.
     */
    static void awaitQuiet() {
        List<Instance> peers = sameTarget();
        java.util.function.Supplier<Double> flushes = () -> peers.stream()
                .mapToDouble(i -> i.cache.metrics().flushCounts().values().stream().mapToDouble(Double::doubleValue).sum())
                .sum();
        long quietNanos = Duration.ofMillis(800).toNanos();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
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
     * Waits until the follower of every running instance on this Redis target has read the log up
     * to its last row now: after that, none of them will relay (and so re-write in L2) a row of the
     * writes made so far, whatever happens to their markers in Redis.
     */
    void awaitFollowersPastTheLog() {
        long last = jdbc.sql("SELECT COALESCE(MAX(seq), 0) FROM cache_invalidations").query(Long.class).single();
        List<Instance> followers = sameTarget().stream().filter(i -> i.cache.follower() != null).toList();
        if (!Await.within(Duration.ofSeconds(30),
                () -> followers.stream().allMatch(i -> i.cache.follower().highestSeen() >= last))) {
            throw new AssertionError("the followers did not read the log up to seq " + last);
        }
    }

    /**
     * Waits until this instance's follower has completed a pass over the log that started after
     * {@code nanoTime} ({@link System#nanoTime}): every row committed before then is applied to its
     * L1 and relayed to L2. (A follower notes a row as seen before applying it, so
     * {@link #awaitFollowersPastTheLog} alone may return while the row is being applied.)
     */
    void awaitPassStartedAfter(long nanoTime) {
        LogFollower follower = cache.follower();
        if (follower == null) {
            return;
        }
        // The pass's age is in whole milliseconds, rounded down: one more keeps the start it implies
        // no later than the real one.
        if (!Await.within(Duration.ofSeconds(30), () -> System.nanoTime()
                - TimeUnit.MILLISECONDS.toNanos(follower.lastPassAgeMillis() + 1) - nanoTime > 0)) {
            throw new AssertionError(this + " completed no pass over the log within 30 s: " + cache.status());
        }
    }

    /** Every running instance that has a cache (mode other than none), on any target. */
    static List<Instance> runningWithCache() {
        return RUNNING.values().stream().filter(i -> i.cache.mode() != CacheMode.NONE).toList();
    }

    /** The running instances on the current Redis target (those that hear each other). */
    static List<Instance> sameTarget() {
        RedisTarget redis = target;
        return RUNNING.entrySet().stream().filter(e -> redis.owns(e.getKey())).map(Map.Entry::getValue).toList();
    }

    /**
     * Waits until the cache is fully up: the log read through (so L1 is served), the breaker closed
     * and L2 readable. A freshly started instance, or one after a Redis outage, gets there by itself
     * within a few passes.
     */
    void awaitHealthy() {
        if (cache.mode() == CacheMode.NONE) {
            return;
        }
        boolean healthy = Await.within(Duration.ofSeconds(60), () ->
                (!cache.mode().usesL1() || cache.l1Trusted())
                        && (cache.redis() == null
                        || cache.redis().breaker().getState() == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED)
                        && (!cache.mode().usesL2() || cache.l2Readable()));
        if (!healthy) {
            throw new AssertionError(this + " did not become healthy: " + cache.status());
        }
    }

    /** The group's version as stored: what an UpdateGroup through this instance must expect. */
    long version(long group) {
        return jdbc.sql("SELECT version FROM study_groups WHERE id = ?").param(group).query(Long.class).single();
    }

    /** The first user that {@code condition} (SQL over users) holds for. */
    long firstUserWhere(String condition) {
        return jdbc.sql("SELECT MIN(id) FROM users WHERE " + condition).query(Long.class).single();
    }

    /** L1 flushes of this instance so far, whatever their reason. */
    double flushes() {
        return cache.metrics().flushCounts().values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** This instance's DataSource, for a connection of its own pool (to hold a lock beside it). */
    DataSource dataSource() {
        return context.getBean(DataSource.class);
    }

    /** Stops this instance (e.g. before what it was started against goes away); named() starts it afresh. */
    void close() {
        RUNNING.values().remove(this);
        context.close();
    }

    @Override
    public String toString() {
        return name + "(" + cache.mode() + ")";
    }
}
