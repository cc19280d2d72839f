package dev.tandem.cache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The Redis pub/sub channel that keeps every instance's L1 coherent, and the reason L1 can promise
 * a staleness bound.
 *
 * <p><b>Publishing.</b> Each write publishes one message after it commits, in the same Lua step
 * that writes its L2 tombstones (so an instance that applies the message can no longer read the
 * old value from L2). Messages of one instance carry a sequence number and go out one at a time
 * under a lock, so they arrive in sequence order; a message that could not be published still
 * uses up its number. Every {@code heartbeat-interval} each instance publishes a heartbeat with its
 * current number.
 *
 * <p><b>Noticing loss.</b> A receiver flushes its whole L1 (and counts why) when a publisher's
 * number skips (a message was lost or never sent), goes backwards (the publisher restarted), is
 * already past zero the first time it is heard (it sent something we never saw), when a publisher
 * falls silent for longer than the bound, and when its own subscription is re-established after a
 * disconnect (everything in between may be lost).
 *
 * <p><b>The bound.</b> Redis delivers a channel's messages to a subscriber in the order it
 * processed them. So when this instance receives its own heartbeat sent at time {@code t}, it has
 * already applied every invalidation that Redis processed before {@code t}. L1 is served only while
 * the latest own heartbeat that came back was sent less than {@code staleness-bound} ago; after
 * that every read bypasses L1 (to L2 or MySQL) until a heartbeat comes back, at which point L1 is
 * flushed and trusted again.
 */
final class InvalidationChannel implements MessageListener, SubscriptionListener {

    private static final Logger log = LoggerFactory.getLogger(InvalidationChannel.class);

    /** A silent publisher is forgotten after this long (it is then "new" if it ever speaks again). */
    private static final long FORGET_AFTER_NANOS = TimeUnit.MINUTES.toNanos(10);

    private static final class Peer {
        volatile long sequence;
        volatile long lastHeardNanos;
        volatile boolean silent;
    }

    private final String instanceId;
    private final String channel;
    private final RedisGateway redis;
    private final L1Tier l1;
    private final L2Tier l2;
    private final CacheMetrics metrics;
    private final Clock clock;
    private final long boundNanos;
    /** How long to listen before L1 is first served: by then every live peer has been heard once. */
    private final long settleNanos;

    private final ReentrantLock publishLock = new ReentrantLock();
    private long sequence;
    /** Only the first failure of a run is logged as a warning; an outage would otherwise log every write. */
    private boolean failing;

    private final Map<String, Peer> peers = new ConcurrentHashMap<>();
    private volatile long trustedUntilNanos = System.nanoTime() - 1;
    private volatile long lastOwnHeartbeatNanos = System.nanoTime() - Long.MAX_VALUE / 4;
    private volatile boolean everTrusted;
    private volatile boolean subscribedBefore;
    private volatile long subscribedSinceNanos;

    InvalidationChannel(String instanceId, String channel, RedisGateway redis, L1Tier l1, L2Tier l2,
                        CacheMetrics metrics, Clock clock, Duration stalenessBound, Duration heartbeatInterval) {
        this.instanceId = instanceId;
        this.channel = channel;
        this.redis = redis;
        this.l1 = l1;
        this.l2 = l2;
        this.metrics = metrics;
        this.clock = clock;
        this.boundNanos = stalenessBound.toNanos();
        this.settleNanos = heartbeatInterval.toNanos() * 2;
    }

    /** Whether L1 may be served now (see the class comment). */
    boolean l1Trusted() {
        return System.nanoTime() - trustedUntilNanos < 0;
    }

    // ---- publishing --------------------------------------------------------------------------

    /**
     * Writes the L2 part of {@code invalidation} (when this instance has an L2) and publishes it,
     * as one atomic Redis step. Returns false when Redis could not take it.
     */
    boolean publishInvalidation(Invalidation invalidation) {
        publishLock.lock();
        try {
            byte[] message = message(ChannelMessage.Kind.INVALIDATE, ++sequence, invalidation);
            if (l2 != null) {
                redis.invalidateAndPublish(l2.tombstoneKeys(invalidation), l2.generationKeys(invalidation),
                        L2Tier.newTombstone(), l2.tombstoneTtlMs(), channel, message);
            } else {
                redis.publish(channel, message);
            }
            metrics.invalidationsSent.increment();
            if (failing) {
                failing = false;
                log.info("Publishing invalidations again");
            }
            return true;
        } catch (RedisGateway.Unavailable e) {
            metrics.invalidationsFailed.increment();
            if (!failing) {
                failing = true;
                log.warn("Could not publish invalidation {} ({}); other instances will notice the gap, and L2 is "
                        + "flushed once Redis is back (further failures are counted in {})", invalidation,
                        e.getMessage(), CacheMetrics.INVALIDATIONS_FAILED);
            }
            return false;
        } finally {
            publishLock.unlock();
        }
    }

    /** Tells every other instance to flush its L1 (after L2 was flushed). */
    boolean publishFlush() {
        publishLock.lock();
        try {
            redis.publish(channel, message(ChannelMessage.Kind.FLUSH, ++sequence, Invalidation.create()));
            metrics.invalidationsSent.increment();
            return true;
        } catch (RedisGateway.Unavailable e) {
            metrics.invalidationsFailed.increment();
            return false;
        } finally {
            publishLock.unlock();
        }
    }

    void heartbeat() {
        publishQuietly(ChannelMessage.Kind.HEARTBEAT);
    }

    void goodbye() {
        publishQuietly(ChannelMessage.Kind.GOODBYE);
    }

    private void publishQuietly(ChannelMessage.Kind kind) {
        publishLock.lock();
        try {
            redis.publish(channel, message(kind, sequence, Invalidation.create()));
        } catch (RedisGateway.Unavailable e) {
            // A heartbeat that cannot be sent is exactly what lets L1 lapse; nothing else to do.
        } finally {
            publishLock.unlock();
        }
    }

    private byte[] message(ChannelMessage.Kind kind, long seq, Invalidation invalidation) {
        return new ChannelMessage(kind, instanceId, seq, clock.instant(), System.nanoTime(), invalidation).encode();
    }

    long sequence() {
        publishLock.lock();
        try {
            return sequence;
        } finally {
            publishLock.unlock();
        }
    }

    // ---- receiving (one dispatch thread, in channel order) ----------------------------------

    @Override
    public void onMessage(Message message, byte[] pattern) {
        long now = System.nanoTime();
        ChannelMessage m;
        try {
            m = ChannelMessage.decode(message.getBody());
        } catch (IllegalArgumentException e) {
            // Perhaps a newer build's invalidation: we cannot tell what it invalidated.
            flushL1("unreadable-message");
            return;
        }
        if (m.publisher().equals(instanceId)) {
            if (m.kind() == ChannelMessage.Kind.HEARTBEAT) {
                ownHeartbeat(m, now);
            }
            // Our own invalidations were applied before they were published.
            return;
        }
        boolean counted = m.kind() == ChannelMessage.Kind.INVALIDATE || m.kind() == ChannelMessage.Kind.FLUSH;
        Peer peer = peers.get(m.publisher());
        String lost = null;
        if (peer == null) {
            peer = new Peer();
            peers.put(m.publisher(), peer);
            // Before L1 is first served there is nothing to flush: a peer's number then only tells
            // where it stands. Afterwards a peer we never heard of should start from zero.
            if (everTrusted && m.sequence() > (counted ? 1 : 0)) {
                lost = "new-publisher";
            }
        } else {
            long expected = counted ? peer.sequence + 1 : peer.sequence;
            if (m.sequence() > expected) {
                lost = "sequence-gap";
            } else if (m.sequence() < expected) {
                lost = "publisher-restarted";
            }
        }
        peer.sequence = m.sequence();
        peer.lastHeardNanos = now;
        peer.silent = false;
        if (lost != null) {
            log.info("Invalidations from {} may have been lost ({}): flushing L1", m.publisher(), lost);
            flushL1(lost);
        }
        switch (m.kind()) {
            case INVALIDATE -> {
                if (l1 != null) {
                    l1.invalidate(m.invalidation());
                }
                applied(m);
            }
            case FLUSH -> {
                flushL1("remote-flush");
                applied(m);
            }
            case GOODBYE -> peers.remove(m.publisher());
            case HEARTBEAT -> {
            }
        }
    }

    private void applied(ChannelMessage m) {
        metrics.invalidationsApplied.increment();
        Duration lag = Duration.between(m.publishedAt(), clock.instant());
        metrics.invalidationLag.record(lag.isNegative() ? Duration.ZERO : lag);
    }

    private void ownHeartbeat(ChannelMessage m, long now) {
        metrics.heartbeatRtt.record(now - m.originNanos(), TimeUnit.NANOSECONDS);
        lastOwnHeartbeatNanos = now;
        long until = m.originNanos() + boundNanos;
        if (!everTrusted && now - subscribedSinceNanos < settleNanos) {
            // Not yet: L1 is first served once every live peer has been heard (and its sequence
            // number learnt), so that a gap in any of them is noticed from then on.
            return;
        }
        if (now - trustedUntilNanos >= 0) {
            // L1 was not trusted up to now: whatever it holds may have missed invalidations.
            // Flushed before it is trusted again, so no reader sees those entries.
            if (everTrusted) {
                log.info("Invalidation channel healthy again: flushing L1 and serving it again");
                flushL1("channel-recovered");
            } else if (l1 != null) {
                l1.flush();
            }
            everTrusted = true;
        }
        if (until - trustedUntilNanos > 0) {
            trustedUntilNanos = until;
        }
    }

    @Override
    public void onChannelSubscribed(byte[] channel, long count) {
        if (!subscribedBefore) {
            subscribedSinceNanos = System.nanoTime();
        }
        if (subscribedBefore) {
            log.info("Re-subscribed to the invalidation channel: flushing L1 (messages may have been lost)");
            flushL1("resubscribed");
        }
        subscribedBefore = true;
    }

    /** Called every heartbeat interval: a peer that stopped talking may have written unheard. */
    void checkPeers() {
        long now = System.nanoTime();
        for (Map.Entry<String, Peer> e : peers.entrySet()) {
            Peer peer = e.getValue();
            long quiet = now - peer.lastHeardNanos;
            if (!peer.silent && quiet > boundNanos) {
                peer.silent = true;
                log.info("No heartbeat from {} for {} ms: flushing L1", e.getKey(), quiet / 1_000_000);
                flushL1("peer-silent");
            } else if (peer.silent && quiet > FORGET_AFTER_NANOS) {
                peers.remove(e.getKey(), peer);
            }
        }
    }

    void flushL1(String reason) {
        if (l1 != null) {
            l1.flush();
            metrics.flush(reason);
        }
    }

    // ---- status ------------------------------------------------------------------------------

    long ownHeartbeatAgeMillis() {
        return (System.nanoTime() - lastOwnHeartbeatNanos) / 1_000_000;
    }

    List<String> peers() {
        return peers.entrySet().stream().filter(e -> !e.getValue().silent).map(Map.Entry::getKey).sorted().toList();
    }

    String instanceId() {
        return instanceId;
    }

    String channel() {
        return channel;
    }

    Instant now() {
        return clock.instant();
    }
}
