package dev.tandem.cache;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;
import reactor.core.Disposable;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one cache of the domain: the services' read methods go through {@link #get}, their write
 * methods hand what they changed to {@link #invalidateAfterCommit}. What it does depends on
 * {@code tandem.cache.mode}; with {@code none} it calls the loader and does nothing else.
 *
 * <p>It knows no feature: the caches it serves ({@link CacheName}s, each with its codec and its
 * validity rule) are declared by the features and handed over in a {@link CacheCatalog} when it is
 * built, and a write names what it made stale as an {@link Invalidation} of caches and keys.
 *
 * <p>Four parts, each in its own class: the read path ({@link ReadPath}: L1 → L2 → MySQL), the write
 * path ({@link WritePath}: a write's invalidations go into the invalidation log in the write's own
 * transaction, then to Redis and this instance's L1), the log follower ({@link LogFollower}: every
 * instance reads the log to keep its L1 coherent and relays what a writer could not), and the
 * status ({@link CacheStatus}). This class wires them and runs the follower.
 *
 * <p>Redis failures: every Redis call goes through one circuit breaker with a short timeout and
 * degrades to the next level; nothing is flushed because of them. An invalidation that could not be
 * relayed stays in the log without a marker and is relayed by the first follower that can, and
 * until then the instances that know of it do not read L2. A lost Redis connection or a changed
 * cluster topology may mean a failover that lost the last tombstones the old master acknowledged:
 * every row of the log is then checked for its marker and relayed again where it is missing
 * (see {@code watchForFailovers}).
 *
 * <p>Why ~360 lines although the parts have their own classes: what is left is their wiring and the
 * lifecycle (start, failover watch, stop), which belong together.
 */
public class TieredCache implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(TieredCache.class);

    private final CacheProperties properties;
    private final CacheCatalog catalog;
    private final CacheMode mode;
    private final CacheMetrics metrics;
    private final L1Tier l1;
    private final L2Tier l2;
    private final RedisGateway redis;
    private final InvalidationLog invalidationLog;
    private final LogFollower follower;
    private final ReadPath reads;
    private final WritePath writes;
    private final RedisConnectionFactory connectionFactory;
    private final FollowerDataSource followerConnection;

    private Disposable redisEvents;
    private ScheduledExecutorService followerThread;
    private volatile boolean running;

    /** A cache that does nothing: mode none, no caches, no Redis, no log. */
    public static TieredCache disabled() {
        return new TieredCache(new CacheProperties(CacheMode.NONE, null, null, null, null, null, null),
                CacheCatalog.of(), null, new SimpleMeterRegistry(), ObservationRegistry.NOOP, Clock.systemUTC(), null,
                null);
    }

    /**
     * @param catalog               every cache the features declared: reads and invalidations of
     *                              other caches are refused, and per-cache state is sized by it
     * @param observations          where the read path's spans go ({@link CacheSpans}); NOOP: none
     * @param applicationDataSource the services' DataSource: the log is appended to inside their transactions
     * @param followerDataSource    a connection of the follower's own (closed with the cache when it is
     *                              AutoCloseable), so that following never waits for the request pool
     */
    public TieredCache(CacheProperties properties, CacheCatalog catalog, RedisConnectionFactory connectionFactory,
                       MeterRegistry registry, ObservationRegistry observations, Clock clock,
                       DataSource applicationDataSource,
                       DataSource followerDataSource) {
        this.properties = properties;
        this.catalog = catalog;
        this.mode = properties.mode();
        this.connectionFactory = connectionFactory;
        this.metrics = new CacheMetrics(registry, catalog);
        this.l1 = mode.usesL1() ? new L1Tier(properties.l1(), clock, catalog, metrics::refreshed) : null;
        if (mode.usesL2()) {
            if (connectionFactory == null) {
                throw new IllegalStateException("tandem.cache.mode=" + mode + " needs Redis (spring.data.redis.*)");
            }
            RedisTemplate<String, byte[]> template = new RedisTemplate<>();
            template.setConnectionFactory(connectionFactory);
            template.setKeySerializer(RedisSerializer.string());
            template.setValueSerializer(RedisSerializer.byteArray());
            template.setEnableDefaultSerializer(false);
            template.afterPropertiesSet();
            this.redis = new RedisGateway(template, breaker(properties), metrics, isCluster(connectionFactory));
            this.l2 = new L2Tier(redis, properties, metrics, clock);
        } else {
            this.redis = null;
            this.l2 = null;
        }
        if (mode != CacheMode.NONE) {
            if (applicationDataSource == null || followerDataSource == null) {
                throw new IllegalStateException("tandem.cache.mode=" + mode + " needs the database for its invalidation log");
            }
            this.followerConnection = new FollowerDataSource(followerDataSource);
            this.invalidationLog = new InvalidationLog(applicationDataSource, followerConnection, catalog);
            this.follower = new LogFollower(invalidationLog, l1, l2, metrics, properties);
        } else {
            this.followerConnection = null;
            this.invalidationLog = null;
            this.follower = null;
        }
        this.reads = new ReadPath(mode, catalog, metrics, new CacheSpans(observations), l1, l2, this::l1Trusted,
                () -> follower.l2Readable() && redis.breaker().getState() != CircuitBreaker.State.OPEN);
        this.writes = new WritePath(mode, catalog, invalidationLog, l1, l2, follower, metrics);
        registerGauges(registry);
    }

    /**
     * Whether Boot built the connection factory for a Redis Cluster (spring.data.redis.cluster.nodes);
     * Sentinel and a single Redis look alike to the cache: one master at a time.
     */
    private static boolean isCluster(RedisConnectionFactory factory) {
        return factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
    }

    private static CircuitBreaker breaker(CacheProperties properties) {
        return CircuitBreaker.of("tandem-cache-redis", CircuitBreakerConfig.custom()
                // Small windows: Redis is either there or not, and the cache should notice in a
                // handful of calls rather than after a burst of timeouts.
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(20)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .slowCallDurationThreshold(properties.redis().commandTimeout())
                .slowCallRateThreshold(100)
                .waitDurationInOpenState(properties.redis().breakerOpenDuration())
                .permittedNumberOfCallsInHalfOpenState(3)
                .automaticTransitionFromOpenToHalfOpenEnabled(true)
                .build());
    }

    private void registerGauges(MeterRegistry registry) {
        if (redis != null) {
            Gauge.builder(CacheMetrics.BREAKER_STATE, redis.breaker(), b -> switch (b.getState()) {
                        case CLOSED -> 0;
                        case HALF_OPEN -> 1;
                        case OPEN -> 2;
                        default -> 3;
                    }).description("Circuit breaker around Redis: 0 closed, 1 half-open, 2 open, 3 disabled/forced")
                    .register(registry);
        }
        if (l1 != null) {
            for (CacheName<?> cache : catalog.all()) {
                Gauge.builder(CacheMetrics.L1_SIZE, l1, t -> t.size(cache)).tag("cache", cache.id())
                        .description("Entries in L1 (estimated)").register(registry);
            }
            Gauge.builder(CacheMetrics.L1_SAFE, this, c -> c.l1Trusted() ? 1 : 0)
                    .description("1 while L1 is served, 0 while the invalidation log was not read through within the bound")
                    .register(registry);
        }
        if (l2 != null) {
            Gauge.builder(CacheMetrics.L2_BLOCKED, this, c -> c.follower.l2Readable() ? 0 : 1)
                    .description("1 while this instance does not read L2: an invalidation it knows of is not relayed "
                            + "to Redis yet, it re-checks the log after a Redis reconnect, it has not yet checked that L2 "
                            + "was read from this database, or it has not read the log through within the bound")
                    .register(registry);
        }
    }

    // ---- the API of the services ------------------------------------------------------------

    /**
     * The value of {@code key} in {@code cache}, from the nearest level that has it, else from
     * {@code loader} (empty means "not found", which L1 remembers briefly). Validation belongs
     * before this call: only the loader's answers are cached.
     */
    public <V> Optional<V> get(CacheName<V> cache, Object key, Supplier<Optional<V>> loader) {
        return reads.get(cache, key, loader);
    }

    /**
     * Makes {@code invalidation} part of the current transaction: logged in it, applied once it has
     * committed (or once its commit failed with an unknown outcome); never on a rollback. Without a
     * transaction, at once. See {@link WritePath}.
     */
    public void invalidateAfterCommit(Invalidation invalidation) {
        writes.invalidateAfterCommit(invalidation);
    }

    /**
     * Empties L2 and every instance's L1; for the admin endpoint and for anything that changes the
     * database behind the services' back (seeding).
     */
    public void flushAll(String reason) {
        writes.flushAll(reason);
    }

    // ---- the committed-change log, for features that push changes to clients ------------------

    /** Whether this instance follows the invalidation log (every mode but none). */
    public boolean followsLog() {
        return follower != null;
    }

    /**
     * {@code subscriber} hears of every committed change this instance reads from the log, from the
     * next pass on (see {@link LogSubscriber}). Only when {@link #followsLog()}.
     */
    public void subscribe(LogSubscriber subscriber) {
        requireLog();
        follower.subscribe(subscriber);
    }

    /** The position subscribers were last told of (0 before the first pass). */
    public long logPosition() {
        requireLog();
        return follower.position();
    }

    /**
     * Whether a change committed after log position {@code after} may have changed {@code key} of
     * {@code cache}: a row above it names it or is a flush, or the log no longer holds (or never
     * held) the rows right above it. One read of the log's retained rows on the primary.
     */
    public boolean changedSince(long after, CacheName<?> cache, Object key) {
        requireLog();
        return invalidationLog.changedSince(after, cache, key);
    }

    private void requireLog() {
        if (follower == null) {
            throw new IllegalStateException("tandem.cache.mode=none keeps no invalidation log");
        }
    }

    // ---- lifecycle ---------------------------------------------------------------------------

    @Override
    public void start() {
        if (follower == null || running) {
            running = true;
            return;
        }
        // A stop that was interrupted while it waited may have left the last pass running: one loop
        // at a time over the follower's state, which only its own thread touches.
        awaitFollowerEnded();
        watchForFailovers();
        // A platform thread of its own and a connection of its own: a saturated request pool or
        // executor must not delay the passes that keep L1 trusted. The kernel schedules it beside
        // the carrier threads, outside the virtual threads' queue. (Its Java priority is only a
        // hint: HotSpot on Linux ignores it unless -XX:ThreadPriorityPolicy=1 and the right to
        // lower a nice value; /proc shows the thread at nice 0 under the bench.)
        followerThread = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .priority(Thread.MAX_PRIORITY).name("tandem-cache-log-" + properties.instanceId()).factory());
        followerThread.scheduleWithFixedDelay(follower::pass, 0, properties.log().pollInterval().toNanos(),
                TimeUnit.NANOSECONDS);
        running = true;
        log.info("Cache mode {} as instance {} (staleness bound {}, log read every {})", mode, properties.instanceId(),
                properties.stalenessBound(), properties.log().pollInterval());
    }

    /**
     * Redis replicates asynchronously: when a master fails over (Sentinel, Cluster) or restarts
     * from a snapshot, the tombstones it acknowledged last may be missing on the node that serves
     * next, and the old values they replaced readable again — though no instance saw a failure.
     * Every such event breaks a connection that Lettuce then reconnects (a crashed master;
     * Sentinel kills the clients of a demoted one) or changes the cluster's topology, so either
     * has the follower re-check every row of the log for its marker (on one Redis a marker and its
     * tombstones are written in one step, so they are lost together; on a cluster they are not, and
     * every row is relayed again) and relay what is missing, not reading L2 meanwhile. (Reconnect
     * attempts, not disconnects: Lettuce closes its short-lived sentinel and topology-refresh
     * connections on purpose, and those are not reconnected.)
     */
    private void watchForFailovers() {
        if (l2 == null || !(connectionFactory instanceof LettuceConnectionFactory lettuce)
                || lettuce.getClientResources() == null) {
            return;
        }
        redisEvents = lettuce.getClientResources().eventBus().get()
                .filter(e -> e instanceof ReconnectAttemptEvent || e instanceof ClusterTopologyChangedEvent)
                .subscribe(e -> {
                    if (running) {
                        // Logged once per episode: an outage makes a reconnect attempt every second.
                        if (!follower.rechecking()) {
                            log.info("Redis {}: L2 may have lost writes (a failover or restart); re-checking the "
                                    + "invalidation log before L2 is read again", e instanceof ReconnectAttemptEvent
                                    ? "connection lost" : "cluster topology changed");
                        }
                        follower.recheckAll();
                    }
                });
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        if (redisEvents != null) {
            redisEvents.dispose();
        }
        if (followerThread != null) {
            followerThread.shutdownNow();
            cutShortAHangingPass();
            awaitFollowerEnded();
        }
    }

    /**
     * A pass ends within milliseconds unless a statement of it waits on a database that stopped
     * answering, which only the connection's socket timeout would end, 10 s later: a shutdown then
     * overran its bound (drain delay + grace period + a few seconds) by that much, on every instance
     * of a database that hung (CacheRestartTest). Such a pass is cut short by aborting its
     * connection: it fails as it would at the timeout, and nothing it has not applied is lost (the
     * log keeps it for the instances that follow on, and a restarted cache reads on from its position).
     */
    private void cutShortAHangingPass() {
        try {
            if (!followerThread.awaitTermination(PASS_ENDS_WITHIN.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("The invalidation log follower's pass in progress did not end within {} ms: aborting its "
                        + "connection (a database that does not answer?)", PASS_ENDS_WITHIN.toMillis());
                followerConnection.abortInUse();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long stop() lets a pass in progress end by itself: many times what one takes. */
    private static final Duration PASS_ENDS_WITHIN = Duration.ofSeconds(1);

    /**
     * Waits until the follower's pass in progress has ended, however long that takes: returned
     * earlier (it gave up after 5 s), stop() left the pass to apply, flush, purge and notify on a
     * stopped cache, and a start() then ran a second loop beside it (CacheRestartTest). A pass cannot
     * wait for ever: its Redis calls time out (command-timeout), its statements on a silent
     * connection too ({@link CacheConfiguration#FOLLOWER_SOCKET_TIMEOUT}), and so does a wait for
     * the follower's connection. Interrupted, it stops waiting; start() waits again.
     */
    private void awaitFollowerEnded() {
        if (followerThread == null) {
            return;
        }
        try {
            while (!followerThread.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("Waiting for the invalidation log follower's pass in progress to end before the cache stops or starts");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Closes the follower's connection when the bean is destroyed (Spring calls a bean's public
     * close()), not in {@link #stop()}: a stopped context may be started again (Spring's test
     * framework pauses a context it does not use for a while), and the follower then reads on.
     */
    public void close() {
        stop();
        if (followerConnection != null) {
            try {
                followerConnection.close();
            } catch (Exception e) {
                log.debug("Closing the log follower's connection", e);
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the Redis connection factory (phase 0) starts, before the web and gRPC servers. */
    @Override
    public int getPhase() {
        return 100;
    }

    // ---- status, for the admin endpoint and tests ------------------------------------------

    public CacheMode mode() {
        return mode;
    }

    public String instanceId() {
        return properties.instanceId();
    }

    public Duration stalenessBound() {
        return properties.stalenessBound();
    }

    /** Whether L1 is being served right now (false in modes without L1). */
    public boolean l1Trusted() {
        return l1 != null && follower.l1Trusted();
    }

    /** Whether this instance reads L2 right now (false in modes without L2). */
    boolean l2Readable() {
        return l2 != null && follower.l2Readable() && redis.breaker().getState() != CircuitBreaker.State.OPEN;
    }

    /** The caches this cache serves. */
    CacheCatalog catalog() {
        return catalog;
    }

    CacheMetrics metrics() {
        return metrics;
    }

    L1Tier l1() {
        return l1;
    }

    L2Tier l2() {
        return l2;
    }

    RedisGateway redis() {
        return redis;
    }

    LogFollower follower() {
        return follower;
    }

    WritePath writes() {
        return writes;
    }

    CacheProperties properties() {
        return properties;
    }

    /** The counters and state the admin endpoint shows. */
    public Map<String, Object> status() {
        return CacheStatus.of(this);
    }

    /** Moves the endpoint's counter baseline to now (Micrometer's counters keep growing). */
    public void resetCounters() {
        metrics.resetBaseline();
    }
}
