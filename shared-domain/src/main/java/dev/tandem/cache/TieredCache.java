package dev.tandem.cache;

import dev.tandem.db.AmbiguousCommits;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.backoff.FixedBackOff;
import reactor.core.Disposable;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The one cache of the domain: the services' read methods go through {@link #get}, their write
 * methods hand what they changed to {@link #invalidateAfterCommit}. What it does depends on
 * {@code tandem.cache.mode}; with {@code none} it calls the loader and does nothing else.
 *
 * <p>Read path: L1 (if present and trusted, see {@link InvalidationChannel}) → L2 (if present and
 * not suspected stale) → the loader, which queries MySQL. Reads inside a transaction bypass the
 * cache, neither reading nor filling it: a read-write transaction must see its own uncommitted rows,
 * and must not put them where others could read them before (or without) the commit; a read-only
 * one reads from the snapshot it took at its first read, which may be older than invalidations
 * this cache has applied since — a fill from it would store the old state over the tombstone and
 * past L1's invalidation counters, and a cache hit would mix another point in time into the
 * transaction's consistent view. Outside a transaction the loader opens its own, so its snapshot is
 * younger than the miss that asked for it, which is what the fill's race checks assume.
 *
 * <p>Write path: after the transaction commits, and before the write method returns, the L2
 * tombstones and the channel message go out in one Redis step, then this instance's L1 is
 * invalidated — in that order, so that a local reader cannot refill L1 from the old L2 value
 * without noticing the invalidation. Nothing runs on rollback; a commit whose outcome is unknown
 * (the connection died during COMMIT) counts as a commit, since it may have been applied.
 *
 * <p>Redis failures: every Redis call goes through one circuit breaker with a short timeout and
 * degrades to the next level. If an L2 invalidation could not be written, L2 may hold the old value
 * for as long as its TTL: this instance then stops reading L2 ("dirty"), and as soon as Redis takes
 * commands again it deletes the whole {@code tandem:cache:*} keyspace and tells every instance to
 * flush its L1. An instance whose breaker opened does the same on recovery even if it wrote
 * nothing, since another instance may have lost tombstones in the same outage: so after a Redis
 * outage no instance reads an L2 value written before it. Flushing everything rather than replaying a local backlog of the lost tombstones,
 * because a backlog is lost with the process, cannot be complete for generations that other
 * instances may have restarted meanwhile, and an outage is rare enough that a cold L2 after it is
 * the cheaper price for a simple argument: after recovery, nothing in L2 predates it. A lost
 * connection and a changed cluster topology count as such an outage too: a failover may lose the
 * last tombstones the old master acknowledged (see {@code watchForFailovers}).
 */
public class TieredCache implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(TieredCache.class);

    private final CacheProperties properties;
    private final CacheMode mode;
    private final CacheMetrics metrics;
    private final L1Tier l1;
    private final L2Tier l2;
    private final RedisGateway redis;
    private final InvalidationChannel channel;
    private final RedisConnectionFactory connectionFactory;

    /** Failed L2 invalidations, and how many of them the last keyspace flush covered. */
    private final AtomicLong l2Failures = new AtomicLong();
    private volatile long l2FailuresFlushed;

    private Disposable redisEvents;
    private long subscribeStartedNanos;
    private final long resubscribeAfterNanos;
    private RedisMessageListenerContainer container;
    private ExecutorService dispatcher;
    private ScheduledExecutorService ticker;
    private volatile boolean running;

    /** A cache that does nothing: mode none, no Redis. */
    public static TieredCache disabled() {
        return new TieredCache(new CacheProperties(CacheMode.NONE, null, null, null, null, null, null), null,
                new SimpleMeterRegistry(), Clock.systemUTC());
    }

    public TieredCache(CacheProperties properties, RedisConnectionFactory connectionFactory, MeterRegistry registry,
                       Clock clock) {
        this.properties = properties;
        this.mode = properties.mode();
        this.connectionFactory = connectionFactory;
        this.metrics = new CacheMetrics(registry);
        this.l1 = mode.usesL1() ? new L1Tier(properties.l1(), clock) : null;
        this.resubscribeAfterNanos = Math.max(Duration.ofSeconds(5).toNanos(), properties.stalenessBound().toNanos() * 5);
        if (mode.usesRedis()) {
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
            this.l2 = mode.usesL2() ? new L2Tier(redis, properties, metrics, clock) : null;
            this.channel = new InvalidationChannel(properties.instanceId(), properties.redis().channel(), redis, l1, l2,
                    metrics, clock, properties.stalenessBound(), properties.heartbeatInterval());
        } else {
            this.redis = null;
            this.l2 = null;
            this.channel = null;
        }
        if (l2 != null) {
            // An outage long enough to open the breaker is an outage in which some instance may
            // have lost tombstones (and Redis may come back with its data): this instance then
            // deletes the L2 keyspace before it reads L2 again, whoever wrote what meanwhile.
            redis.breaker().getEventPublisher().onStateTransition(event -> {
                CircuitBreaker.State to = event.getStateTransition().getToState();
                if (to == CircuitBreaker.State.OPEN || to == CircuitBreaker.State.FORCED_OPEN) {
                    l2Failures.incrementAndGet();
                }
            });
        }
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
            for (CacheName<?> cache : CacheName.ALL) {
                Gauge.builder(CacheMetrics.L1_SIZE, l1, t -> t.size(cache)).tag("cache", cache.id())
                        .description("Entries in L1 (estimated)").register(registry);
            }
            Gauge.builder(CacheMetrics.L1_SAFE, this, c -> c.channel.l1Trusted() ? 1 : 0)
                    .description("1 while L1 is served, 0 while invalidations cannot be confirmed within the bound")
                    .register(registry);
        }
        if (l2 != null) {
            Gauge.builder(CacheMetrics.L2_DIRTY, this, c -> c.l2Dirty() ? 1 : 0)
                    .description("1 while L2 may be stale (an invalidation failed, the breaker opened, a Redis connection was "
                            + "lost or the cluster topology changed) and the L2 keyspace has not been flushed since")
                    .register(registry);
        }
    }

    // ---- reads -------------------------------------------------------------------------------

    /**
     * The value of {@code key} in {@code cache}, from the nearest level that has it, else from
     * {@code loader} (empty means "not found", which L1 remembers briefly). Validation belongs
     * before this call: only the loader's answers are cached.
     */
    public <V> Optional<V> get(CacheName<V> cache, Object key, Supplier<Optional<V>> loader) {
        if (mode == CacheMode.NONE || TransactionSynchronizationManager.isActualTransactionActive()) {
            return loader.get();
        }
        if (l1 != null) {
            if (channel.l1Trusted()) {
                Optional<V> hit = l1.getIfPresent(cache, key);
                if (hit != null) {
                    metrics.hit(cache, CacheMetrics.Level.L1);
                    return hit;
                }
                metrics.miss(cache, CacheMetrics.Level.L1);
                return l1.load(cache, key, () -> belowL1(cache, key, loader), channel::l1Trusted);
            }
            metrics.bypass(cache);
        }
        return belowL1(cache, key, loader);
    }

    private <V> Optional<V> belowL1(CacheName<V> cache, Object key, Supplier<Optional<V>> loader) {
        if (l2 != null && !l2Dirty()) {
            long started = System.nanoTime();
            L2Tier.Seen<V> seen = null;
            try {
                seen = l2.read(cache, key);
            } catch (RedisGateway.Unavailable e) {
                // Counted by the gateway; MySQL answers.
            }
            if (seen != null) {
                if (seen.hit()) {
                    metrics.hit(cache, CacheMetrics.Level.L2);
                    metrics.l2Load(cache).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                    return Optional.of(seen.value);
                }
                metrics.miss(cache, CacheMetrics.Level.L2);
                Optional<V> loaded = fromSource(cache, loader);
                if (loaded.isPresent() && !l2Dirty()) {
                    // The fill's age counts from before the L2 read: the load came after it.
                    l2.fill(cache, seen, loaded.get(), started);
                }
                return loaded;
            }
        }
        return fromSource(cache, loader);
    }

    private <V> Optional<V> fromSource(CacheName<V> cache, Supplier<Optional<V>> loader) {
        long started = System.nanoTime();
        try {
            return loader.get();
        } finally {
            metrics.dbLoad(cache).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
    }

    // ---- writes ------------------------------------------------------------------------------

    /**
     * Applies {@code invalidation} once the current transaction has committed (all invalidations of
     * one transaction go out as one message), or once its commit failed with an unknown outcome;
     * never on a rollback. Without a transaction, at once — also in a scope that suspended one
     * (NOT_SUPPORTED): what was written there has committed by itself, whatever the scope does next.
     * A REQUIRES_NEW transaction collects its own invalidations, applied when it commits: the
     * suspended transaction's pending ones are unbound meanwhile (see {@link PendingInvalidation}).
     */
    public void invalidateAfterCommit(Invalidation invalidation) {
        if (mode == CacheMode.NONE || invalidation.isEmpty()) {
            return;
        }
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            apply(invalidation);
            return;
        }
        PendingInvalidation pending = (PendingInvalidation) TransactionSynchronizationManager.getResource(this);
        if (pending == null) {
            pending = new PendingInvalidation();
            TransactionSynchronizationManager.bindResource(this, pending);
            TransactionSynchronizationManager.registerSynchronization(pending);
        }
        pending.invalidation.addAll(invalidation);
    }

    /**
     * One transaction's invalidations, bound to the thread while that transaction is the current
     * one. Spring suspends a transaction's synchronizations for a REQUIRES_NEW (or NOT_SUPPORTED)
     * scope but not the resources others bound, so this unbinds itself on suspend and binds itself
     * again on resume: otherwise the inner transaction's invalidations would be added here, applied
     * only when the outer one commits — and never if it rolls back, though the inner one committed.
     */
    private final class PendingInvalidation implements TransactionSynchronization {
        final Invalidation invalidation = Invalidation.create();
        /** {@link AmbiguousCommits#count()} just before the commit (or rollback) began. */
        private long ambiguousCommitsBefore;

        @Override
        public void suspend() {
            TransactionSynchronizationManager.unbindResource(TieredCache.this);
        }

        @Override
        public void resume() {
            TransactionSynchronizationManager.bindResource(TieredCache.this, this);
        }

        @Override
        public void beforeCompletion() {
            ambiguousCommitsBefore = AmbiguousCommits.count();
        }

        @Override
        public void afterCommit() {
            apply(invalidation);
        }

        /**
         * A commit whose answer was lost (the connection died during COMMIT) may have been applied,
         * and the client is told to read before retrying: that read must not come from the cache.
         * Spring reports such a commit as STATUS_UNKNOWN, or — JpaTransactionManager, which rolls
         * back on the dead connection — as rolled back; only the JDBC layer saw the commit fail
         * after it was sent. Invalidating for a transaction that was in fact rolled back costs a
         * miss; not invalidating for one that was applied serves the old state until the TTL.
         */
        @Override
        public void afterCompletion(int status) {
            try {
                boolean mayHaveCommitted = status == STATUS_UNKNOWN
                        || status == STATUS_ROLLED_BACK && AmbiguousCommits.count() != ambiguousCommitsBefore;
                if (mayHaveCommitted) {
                    log.warn("The commit's outcome is unknown (it may have been applied): invalidating {}", invalidation);
                    apply(invalidation);
                }
            } finally {
                TransactionSynchronizationManager.unbindResourceIfPossible(TieredCache.this);
            }
        }
    }

    /** L2 and the channel first, then this instance's L1 (see the class comment). Never throws. */
    private void apply(Invalidation invalidation) {
        try {
            if (!channel.publishInvalidation(invalidation) && l2 != null) {
                l2Failures.incrementAndGet();
            }
        } catch (RuntimeException e) {
            log.error("Unexpected failure publishing invalidation {}", invalidation, e);
            l2Failures.incrementAndGet();
        } finally {
            if (l1 != null) {
                l1.invalidate(invalidation);
            }
        }
    }

    /**
     * Empties L2 (every key under the prefix) and every instance's L1; for the admin endpoint and
     * for anything that changes the database behind the services' back (seeding).
     */
    public void flushAll(String reason) {
        if (mode == CacheMode.NONE) {
            return;
        }
        // L2 before L1, for the same reason as invalidations: L1 must not refill from old L2.
        if (l2 != null) {
            flushL2();
        }
        channel.flushL1(reason);
        channel.publishFlush();
    }

    private boolean flushL2() {
        long failures = l2Failures.get();
        try {
            long removed = l2.flush();
            l2FailuresFlushed = failures;
            log.debug("Flushed {} L2 keys under {}", removed, l2.prefix());
            return true;
        } catch (RedisGateway.Unavailable e) {
            l2Failures.incrementAndGet();
            return false;
        }
    }

    boolean l2Dirty() {
        return l2Failures.get() != l2FailuresFlushed;
    }

    // ---- lifecycle ---------------------------------------------------------------------------

    private void tick() {
        try {
            ensureSubscribed();
            channel.heartbeat();
            channel.checkPeers();
            if (l2 != null && l2Dirty() && redis.breaker().getState() != CircuitBreaker.State.OPEN) {
                log.info("Redis takes commands again after lost L2 invalidations: flushing L2 and every L1");
                if (flushL2()) {
                    channel.publishFlush();
                }
            }
        } catch (RuntimeException e) {
            log.warn("Cache heartbeat tick failed", e);
        }
    }

    /**
     * Starts the subscription, or starts it again if it failed: Spring's container gives up when the
     * very first subscription fails (Redis down at start-up) and retries only later failures, so
     * the ticker keeps trying here. Without a subscription no heartbeat comes back, so L1 stays
     * unserved meanwhile.
     */
    private void ensureSubscribed() {
        long now = System.nanoTime();
        boolean listening = container.isListening();
        // A SUBSCRIBE that timed out (a busy machine) can leave the container "listening" on
        // nothing. While Redis takes our commands (the breaker is closed, so our heartbeats are
        // published) and none of them has come back for long after subscribing, start it afresh.
        boolean deaf = listening && now - subscribeStartedNanos > resubscribeAfterNanos
                && channel.ownHeartbeatAgeMillis() > TimeUnit.NANOSECONDS.toMillis(resubscribeAfterNanos)
                && redis.breaker().getState() == CircuitBreaker.State.CLOSED;
        if (listening && !deaf) {
            return;
        }
        if (deaf) {
            log.info("Subscribed for {} ms without hearing our own heartbeat: subscribing to the invalidation channel again",
                    TimeUnit.NANOSECONDS.toMillis(now - subscribeStartedNanos));
        }
        subscribeStartedNanos = now;
        try {
            container.stop();
            container.start();
        } catch (RuntimeException e) {
            log.debug("Invalidation channel not subscribed yet: {}", e.toString());
        }
    }

    @Override
    public void start() {
        if (channel == null || running) {
            running = true;
            return;
        }
        dispatcher = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("tandem-cache-channel").factory());
        container = new RedisMessageListenerContainer();
        container.setConnectionFactory(connectionFactory);
        // One thread, so that messages are applied in the order Redis delivered them.
        container.setTaskExecutor(dispatcher);
        container.setRecoveryBackoff(new FixedBackOff(properties.heartbeatInterval().toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS));
        container.setMaxSubscriptionRegistrationWaitingTime(properties.stalenessBound().toMillis());
        container.addMessageListener(channel, new ChannelTopic(channel.channel()));
        container.afterPropertiesSet();
        watchForFailovers();
        // Subscribed by the first tick, off the start-up thread: Redis being down must not stop
        // (or slow down) a service from starting.
        ticker = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("tandem-cache-heartbeat").factory());
        long interval = properties.heartbeatInterval().toNanos();
        ticker.scheduleAtFixedRate(this::tick, 0, interval, TimeUnit.NANOSECONDS);
        running = true;
        log.info("Cache mode {} as instance {} (staleness bound {}, channel {})", mode, properties.instanceId(),
                properties.stalenessBound(), channel.channel());
    }

    /**
     * Redis replicates asynchronously: when a master fails over (Sentinel, Cluster) or restarts
     * from a snapshot, the tombstones it acknowledged last may be missing on the node that serves
     * next, and the old values they replaced readable again — though no instance saw a failure.
     * Every such event breaks a connection that Lettuce then reconnects (a crashed master;
     * Sentinel kills the clients of a demoted one) or changes the cluster's topology, so either
     * marks L2 as possibly stale: this instance stops reading it and deletes the L2 keyspace (and
     * has every L1 flushed) as soon as Redis takes commands, as after an outage. (Reconnect
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
                        if (!l2Dirty()) {
                            log.info("Redis {}: L2 may have lost writes (a failover or restart), flushing it before it "
                                    + "is read again", e instanceof ReconnectAttemptEvent ? "connection lost"
                                    : "cluster topology changed");
                        }
                        l2Failures.incrementAndGet();
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
        if (ticker != null) {
            ticker.shutdownNow();
            channel.goodbye();
        }
        if (container != null) {
            try {
                container.stop();
                container.destroy();
            } catch (Exception e) {
                log.debug("Stopping the invalidation listener", e);
            }
        }
        if (dispatcher != null) {
            dispatcher.shutdownNow();
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
        return l1 != null && channel.l1Trusted();
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

    InvalidationChannel channel() {
        return channel;
    }

    /** The counters and state the admin endpoint shows. */
    public Map<String, Object> status() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("mode", mode.name().toLowerCase());
        out.put("instanceId", properties.instanceId());
        out.put("stalenessBoundMs", properties.stalenessBound().toMillis());
        Map<String, Object> caches = new LinkedHashMap<>();
        long[] totals = new long[4];
        for (CacheName<?> cache : CacheName.ALL) {
            Map<String, Object> levels = new LinkedHashMap<>();
            for (CacheMetrics.Level level : CacheMetrics.Level.values()) {
                long hits = metrics.hits(cache, level);
                long misses = metrics.misses(cache, level);
                totals[level.ordinal() * 2] += hits;
                totals[level.ordinal() * 2 + 1] += misses;
                levels.put(level.tag(), counts(hits, misses));
            }
            if (l1 != null) {
                levels.put("l1Size", l1.size(cache));
            }
            caches.put(cache.id(), levels);
        }
        out.put("caches", caches);
        Map<String, Object> total = new LinkedHashMap<>();
        for (CacheMetrics.Level level : CacheMetrics.Level.values()) {
            total.put(level.tag(), counts(totals[level.ordinal() * 2], totals[level.ordinal() * 2 + 1]));
        }
        out.put("total", total);
        out.put("l1", Map.of("enabled", l1 != null, "trusted", l1Trusted(), "size", l1 == null ? 0 : l1.size()));
        if (redis != null) {
            out.put("l2", Map.of("enabled", l2 != null, "dirty", l2 != null && l2Dirty()));
            out.put("breaker", redis.breaker().getState().name());
            Map<String, Object> ch = new LinkedHashMap<>();
            ch.put("name", channel.channel());
            ch.put("healthy", channel.ownHeartbeatAgeMillis() < properties.stalenessBound().toMillis());
            ch.put("ownHeartbeatAgeMs", channel.ownHeartbeatAgeMillis());
            ch.put("sequence", channel.sequence());
            ch.put("peers", channel.peers());
            out.put("channel", ch);
        }
        out.put("invalidations", Map.of(
                "sent", (long) metrics.invalidationsSent.count(),
                "failed", (long) metrics.invalidationsFailed.count(),
                "applied", (long) metrics.invalidationsApplied.count()));
        out.put("l1Flushes", metrics.flushCounts());
        out.put("redisErrors", metrics.redisErrorCounts());
        return out;
    }

    private static Map<String, Object> counts(long hits, long misses) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hits", hits);
        m.put("misses", misses);
        m.put("hitRatio", hits + misses == 0 ? 0.0 : (double) hits / (hits + misses));
        return m;
    }

    /** Moves the endpoint's counter baseline to now (Micrometer's counters keep growing). */
    public void resetCounters() {
        metrics.resetBaseline();
    }
}
