package dev.tandem.group.watch;

import dev.tandem.cache.CommittedChange;
import dev.tandem.cache.TieredCache;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.error.FieldViolation;
import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupService;
import dev.tandem.group.GroupView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Service;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watches of groups: a client names a group and gets its state, then its new state after every
 * committed change that touched it, a heartbeat while nothing changes, and a last event when the
 * group is deleted or this instance shuts down. Both wires serve it (WatchGroup, GET
 * /api/v1/groups/{id}/events); they only map events to their stream.
 *
 * <p><b>Fed by the invalidation log.</b> Every write records what it made stale in the log in its
 * own transaction, and every instance's log follower reads the log (see
 * {@link dev.tandem.cache.LogFollower}); this class subscribes to what the follower read. A change
 * made through any instance reaches the watchers of every instance, and a position is the log's:
 * {@link #open} with {@code since} asks the log whether a change touched the group after it, so a
 * client that reconnects gets the group's state again only if it missed a change — and always when
 * the log no longer holds the rows after its position (it was away longer than
 * {@code tandem.cache.log.retention}), since a state tells it everything a missed change would.
 *
 * <p><b>Threads.</b> The follower's thread only hands a pass over. One dispatcher thread takes what
 * the passes read since it last looked (passes that come while it reads are merged into one batch,
 * so a dispatcher slower than the follower falls behind by one batch, not by a queue of them), reads
 * each touched group once through the cache (in parallel, on virtual threads) and offers its state to
 * the group's watchers. Each watcher keeps one pending event, the
 * latest (a newer state replaces an unsent one; a heartbeat replaces only a heartbeat, and never
 * carries a position behind one the watcher was offered; a last event follows an unsent state
 * instead of replacing it), so a slow client costs one event of
 * memory, not a queue; a virtual thread sends it while the client
 * takes it. No thread waits per idle watcher, and request threads are never used after {@link #open}.
 *
 * <p><b>A state is sent once.</b> A change that leaves the group as the watcher was last sent it
 * (the watch's first read already saw it, or a flush touched every group) reaches the watcher as a
 * heartbeat at its position, not as the same state again.
 */
@Service
public class GroupWatch implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(GroupWatch.class);

    /** One client's watch, as the wire holds it. */
    public interface Watch {
        /** The client went away (cancelled, disconnected): frees its place. Idempotent. */
        void cancel();

        /** The wire is ready for more after {@link WatchSink#ready()} said no: sends what is pending. */
        void resume();
    }

    private final GroupService groups;
    private final TieredCache cache;
    private final WatchProperties properties;
    private final Map<Long, Set<Watcher>> watchersByGroup = new ConcurrentHashMap<>();
    private final AtomicInteger watching = new AtomicInteger();
    /**
     * How many watches each client holds, for max-watchers-per-client. A client's entry goes when its
     * count reaches zero, so this holds only clients watching now (at most max-watchers of them).
     * Each change is one compute on the client's key: a count and its removal cannot interleave.
     */
    private final Map<String, Integer> watchingByClient = new ConcurrentHashMap<>();
    private final ExecutorService dispatcher =
            Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("tandem-watch-dispatch").factory());
    private final ExecutorService readers =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("tandem-watch-read-", 0).factory());
    private final ExecutorService senders =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("tandem-watch-send-", 0).factory());
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("tandem-watch-heartbeat").factory());
    /** The position up to which every change has been offered to the watchers it touched. */
    private volatile long dispatched;
    private volatile boolean closing;
    /** What the passes read that the dispatcher has not taken yet (guarded by itself). */
    private final Batch batch = new Batch();

    /**
     * The changes of the passes not dispatched yet, and the newest position. Beyond
     * {@link #MOST_CHANGES_KEPT} changes it keeps only that every watched group must be read, which
     * a flush asks anyway: memory stays bounded however far the dispatcher falls behind.
     */
    private static final class Batch {
        List<CommittedChange> changes = new ArrayList<>();
        boolean everyGroup;
        long position;
        /**
         * A pass reported a position below the one before it (the log restarted) since the last
         * dispatch: kept apart, so that a later pass's position folded into the same batch does not
         * hide the restart from the dispatcher.
         */
        boolean wentBack;
        boolean queued;
    }

    private static final int MOST_CHANGES_KEPT = 10_000;

    public GroupWatch(GroupService groups, TieredCache cache, WatchProperties properties) {
        this.groups = groups;
        this.cache = cache;
        this.properties = properties;
        if (cache.followsLog()) {
            cache.subscribe(this::taken);
            long every = properties.heartbeat().toNanos();
            heartbeats.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * A client's position as it sent it ({@code since}, {@code Last-Event-ID}): empty when
     * {@code text} is null or blank, else a non-negative integer, else INVALID_ARGUMENT naming
     * {@code field}.
     */
    public static OptionalLong position(String text, String field) {
        if (text == null || text.isBlank()) {
            return OptionalLong.empty();
        }
        String value = text.strip();
        // At most 18 digits: no overflow, and no sign, exponent or fraction gets through.
        if (!value.matches("[0-9]{1,18}")) {
            throw DomainException.invalid(field, "must be a position from an earlier event (a non-negative integer), got '"
                    + FieldViolation.shortened(value, 40) + "'");
        }
        return OptionalLong.of(Long.parseLong(value));
    }

    /**
     * Starts watching group {@code groupId} into {@code sink}. Without {@code since} the first event
     * is the group's current state; with it, only if a change touched the group after that position
     * (or the log cannot tell). Throws before anything is sent: NOT_FOUND for an unknown group,
     * RESOURCE_EXHAUSTED when {@code client} holds {@code tandem.watch.max-watchers-per-client}
     * watches already, or this instance serves {@code tandem.watch.max-watchers},
     * UNAVAILABLE while it shuts down, UNIMPLEMENTED with {@code tandem.cache.mode=none} (no log).
     * {@code client}: who watches, named as the rate limit names a client
     * ({@link dev.tandem.ratelimit.ClientRateLimiter#clientOf}).
     */
    public Watch open(long groupId, OptionalLong since, String client, WatchSink sink) {
        if (!cache.followsLog()) {
            throw noLog();
        }
        if (closing) {
            throw shuttingDown();
        }
        // The client's cap first: a client at its own is told so, not sent to another instance.
        if (!takeClientPlace(client)) {
            throw clientAtItsCap();
        }
        if (watching.incrementAndGet() > properties.maxWatchers()) {
            giveClientPlaceBack(client);
            watching.decrementAndGet();
            throw instanceFull();
        }
        // From here the watcher holds both places, and gives them back once when it ends (unregister).
        Watcher watcher = new Watcher(groupId, client, sink);
        // Registered before the group is read: a change committed from now on reaches it.
        watchersByGroup.compute(groupId, (id, watchers) -> {
            Set<Watcher> set = watchers == null ? ConcurrentHashMap.newKeySet() : watchers;
            set.add(watcher);
            return set;
        });
        try {
            if (closing) {
                // shutDown began after the check above and may have ended the watches before this
                // one was registered: refused, as it would have been a moment later.
                throw shuttingDown();
            }
            long position = dispatched;
            GroupView group = groups.get(groupId);
            if (since.isEmpty() || cache.changedSince(since.getAsLong(), GroupCaches.GROUP, groupId)) {
                watcher.offerFirst(new GroupEvent.Changed(position, group));
            }
            watcher.opened();
            return watcher;
        } catch (RuntimeException e) {
            watcher.cancel();
            throw e;
        }
    }

    /**
     * A quota met (the instance's or the client's), not a failure of the instance, which UNAVAILABLE
     * would tell clients and balancers (README, "Limits and shutdown"): RESOURCE_EXHAUSTED with
     * Retry-After and the limit in the metadata.
     */
    /**
     * Throws what {@link #open} would refuse {@code client} with now, before it reads the group, and
     * takes no place: for a HEAD of the stream, which answers with what a GET would start with and
     * watches nothing. (A GET a moment later may still find another answer: places come and go.)
     */
    public void checkOpen(String client) {
        if (!cache.followsLog()) {
            throw noLog();
        }
        if (closing) {
            throw shuttingDown();
        }
        if (watchingByClient.getOrDefault(client, 0) >= properties.maxWatchersPerClient()) {
            throw clientAtItsCap();
        }
        if (watching.get() >= properties.maxWatchers()) {
            throw instanceFull();
        }
    }

    private static DomainException noLog() {
        return new DomainException(ErrorCode.UNIMPLEMENTED, "watching groups needs the invalidation log, which this "
                + "instance does not keep (tandem.cache.mode=none)");
    }

    private DomainException clientAtItsCap() {
        return tooManyWatches("this client holds " + properties.maxWatchersPerClient()
                + " watches already (tandem.watch.max-watchers-per-client); end one, or retry later",
                "max_watchers_per_client", properties.maxWatchersPerClient());
    }

    private DomainException instanceFull() {
        return tooManyWatches("this instance serves " + properties.maxWatchers()
                + " watches already (tandem.watch.max-watchers); retry later", "max_watchers", properties.maxWatchers());
    }

    private DomainException tooManyWatches(String message, String limit, int value) {
        return new DomainException(ErrorCode.RESOURCE_EXHAUSTED, message, List.of(), null, null, properties.retryAfter(),
                Map.of(limit, String.valueOf(value)), null);
    }

    /** Counts one more watch of {@code client}; false, counting nothing, when it is at its cap. */
    private boolean takeClientPlace(String client) {
        boolean[] taken = {false};
        watchingByClient.compute(client, (key, held) -> {
            int count = held == null ? 0 : held;
            if (count >= properties.maxWatchersPerClient()) {
                return held;
            }
            taken[0] = true;
            return count + 1;
        });
        return taken[0];
    }

    /** Counts one watch of {@code client} less; at zero the client's entry goes. */
    private void giveClientPlaceBack(String client) {
        watchingByClient.computeIfPresent(client, (key, held) -> held > 1 ? held - 1 : null);
    }

    /** The clients holding a watch now: for GroupWatchTest, which checks that none is left counted. */
    Set<String> clientsWatching() {
        return Set.copyOf(watchingByClient.keySet());
    }

    private DomainException shuttingDown() {
        return new DomainException(ErrorCode.UNAVAILABLE, "this instance is shutting down; watch again",
                List.of(), null, null, properties.retryAfter(), Map.of(), null);
    }

    /**
     * The position up to which every change has been offered to every watcher it touched. Watchers
     * of one group are offered a change one after another, so a client that has received it does
     * not mean the others have been offered it yet; this does.
     */
    long dispatched() {
        return dispatched;
    }

    /** How many watches this instance serves now. */
    public int watching() {
        return watching.get();
    }

    /**
     * On the follower's thread: a pass's changes join the batch, and the dispatcher is woken unless
     * it is already. Package-private for GroupWatchTest, which reports a pass as the follower would.
     */
    void taken(List<CommittedChange> changes, long position) {
        synchronized (batch) {
            if (!batch.everyGroup) {
                batch.changes.addAll(changes);
                if (batch.changes.size() > MOST_CHANGES_KEPT) {
                    batch.everyGroup = true;
                    batch.changes = new ArrayList<>();
                }
            }
            if (position < batch.position) {
                batch.wentBack = true;
            }
            batch.position = position;
            if (batch.queued) {
                return;
            }
            batch.queued = true;
        }
        if (!dispatcher.isShutdown()) {
            dispatcher.execute(this::dispatchBatch);
        }
    }

    private void dispatchBatch() {
        List<CommittedChange> changes;
        boolean everyGroup;
        long position;
        boolean wentBack;
        synchronized (batch) {
            changes = batch.changes;
            everyGroup = batch.everyGroup;
            position = batch.position;
            wentBack = batch.wentBack;
            batch.changes = new ArrayList<>();
            batch.everyGroup = false;
            batch.wentBack = false;
            batch.queued = false;
        }
        dispatch(changes, everyGroup, position, wentBack);
    }

    /** On the dispatcher thread: every watched group a change touched is read once and offered. */
    private void dispatch(List<CommittedChange> changes, boolean everyGroup, long position, boolean wentBack) {
        long before = dispatched;
        if (wentBack || position < before) {
            // The log restarted (a recreated database numbers its rows from 1 again): positions from
            // before mean nothing in the new log, and every state would look older than one already
            // offered. Every watch ends, as at shutdown, and its client watches again: a position
            // above the new log's rows gets the state (changedSince cannot vouch for it).
            GroupEvent.Reconnect last = new GroupEvent.Reconnect(before, "the invalidation log restarted");
            watchersByGroup.values().forEach(watchers -> watchers.forEach(w -> w.offer(last)));
            dispatched = position;
            return;
        }
        Set<Long> touched = new HashSet<>();
        for (CommittedChange change : changes) {
            if (everyGroup || change.flush()) {
                everyGroup = true;
                break;
            }
            for (Long groupId : watchersByGroup.keySet()) {
                if (change.touches(GroupCaches.GROUP, groupId)) {
                    touched.add(groupId);
                }
            }
        }
        if (everyGroup) {
            touched.addAll(watchersByGroup.keySet());
        }
        List<Callable<Void>> reads = new ArrayList<>(touched.size());
        for (long groupId : touched) {
            reads.add(() -> {
                offer(groupId, read(groupId, position, before));
                return null;
            });
        }
        try {
            readers.invokeAll(reads);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        dispatched = position;
    }

    /**
     * The group's state after the changes up to {@code position}; when it cannot be read (the database
     * is down), the watch ends with the position {@code before} them, so that the client's next watch
     * finds the change it did not get.
     */
    private GroupEvent read(long groupId, long position, long before) {
        try {
            return new GroupEvent.Changed(position, groups.get(groupId));
        } catch (DomainException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return new GroupEvent.Deleted(position, groupId);
            }
            log.warn("Could not read group {} for its watchers ({}); ending their watches", groupId, e.getMessage());
            return new GroupEvent.Reconnect(before, "could not read the group after a change: " + e.getMessage());
        } catch (RuntimeException e) {
            log.warn("Could not read group {} for its watchers; ending their watches", groupId, e);
            return new GroupEvent.Reconnect(before, "could not read the group after a change");
        }
    }

    /** Package-private for the test of the watcher's rules (GroupWatchTest), which offers events as dispatch would. */
    void offer(long groupId, GroupEvent event) {
        Set<Watcher> watchers = watchersByGroup.get(groupId);
        if (watchers != null) {
            watchers.forEach(w -> w.offer(event));
        }
    }

    private void heartbeat() {
        GroupEvent.Heartbeat beat = new GroupEvent.Heartbeat(dispatched);
        long now = System.nanoTime();
        watchersByGroup.values().forEach(watchers -> watchers.forEach(w -> {
            w.endIfStalled(now);
            w.offer(beat);
        }));
    }

    /**
     * As the context starts closing — before the servers stop accepting and wait for what is in
     * flight, which a watch never stops being — every watch gets its last event and ends, and new
     * ones are refused with UNAVAILABLE, so clients watch again through another instance.
     */
    @EventListener(ContextClosedEvent.class)
    @Order(Ordered.HIGHEST_PRECEDENCE)
    public void shutDown() {
        closing = true;
        GroupEvent.Reconnect last = new GroupEvent.Reconnect(dispatched, "this instance is shutting down");
        watchersByGroup.values().forEach(watchers -> watchers.forEach(w -> w.offer(last)));
        if (watching.get() > 0) {
            log.info("Shutting down: ended {} group watches (their clients watch again from position {})",
                    watching.get(), last.position());
        }
    }

    @Override
    public void destroy() {
        heartbeats.shutdownNow();
        dispatcher.shutdownNow();
        readers.shutdownNow();
        senders.shutdownNow();
    }

    /** One client's watch: at most one pending event, sent by a virtual thread while there is one. */
    private final class Watcher implements Watch {
        private final long groupId;
        private final String client;
        private final WatchSink sink;
        private GroupEvent pending;
        /** A last event offered while a state was pending: sent right after it (see offer). */
        private GroupEvent lastAfterPending;
        /** The group in the last state offered: the same state is not sent twice (see offer). */
        private GroupView lastState;
        private long offered = -1;
        private boolean sending;
        private boolean lastOffered;
        private boolean ended;
        /** The position of the last event sent (or being sent), -1 before the first. */
        private long sentPosition = -1;
        /** When the sender last found an event waiting and the client not ready (System.nanoTime); 0: it was not. */
        private long stalledSince;
        /**
         * False while {@link GroupWatch#open} still reads the group: what is offered meanwhile (a
         * heartbeat, a change) waits as the pending event, so a watch that open refuses (unknown
         * group) has sent its client nothing, and a refusal is never preceded by a heartbeat.
         */
        private boolean groupRead;

        Watcher(long groupId, String client, WatchSink sink) {
            this.groupId = groupId;
            this.client = client;
            this.sink = sink;
        }

        /**
         * The state {@link GroupWatch#open} read, unless a dispatch offered one meanwhile: that one was
         * read once the watcher was registered, after every change up to its position, and may be
         * newer than this one at the same position (two passes report one position while a hole
         * below stays open), which {@link #offer} would let this one replace.
         */
        synchronized void offerFirst(GroupEvent.Changed first) {
            if (lastState != null || ended) {
                return;
            }
            if (lastOffered && pending != null && pending.last() && lastAfterPending == null) {
                // A last event (shutdown, a restarted log) came while the group was read: the client
                // has no state yet, and the last event's position says it has seen everything up to
                // it. The state goes first (opened() starts the sending).
                lastAfterPending = pending;
                pending = first;
                lastState = first.group();
                return;
            }
            if (first.position() < offered) {
                // A heartbeat came while the group was read, at a position the dispatcher reached
                // through other groups' changes. None of this group's was dispatched in between (it
                // would be lastState), so the state read is the group's at that position too: it goes
                // at that position, in the heartbeat's place, instead of looking older and being dropped.
                first = new GroupEvent.Changed(offered, first.group());
            }
            offer(first);
        }

        synchronized void offer(GroupEvent event) {
            if (ended || lastOffered) {
                return;
            }
            if (event instanceof GroupEvent.Changed changed) {
                if (changed.position() < offered) {
                    // An older state than one already offered (the first read raced a change).
                    return;
                }
                if (changed.group().equals(lastState) && !(pending instanceof GroupEvent.Changed)) {
                    // The state the client has been sent already: the first read saw this change
                    // before it was dispatched, or the change left the group as it was (a flush
                    // touches every group). Only its position is news, and a heartbeat carries that.
                    // (An unsent state is replaced as usual: the same state at the newer position.)
                    event = new GroupEvent.Heartbeat(changed.position());
                }
                lastState = changed.group();
            }
            if (event instanceof GroupEvent.Heartbeat beat) {
                if (pending != null && !(pending instanceof GroupEvent.Heartbeat)) {
                    // A heartbeat never replaces a state or a last event, only a heartbeat (never
                    // one ahead of it: see below).
                    return;
                }
                if (beat.position() < offered) {
                    // A periodic heartbeat carries the position dispatched so far, which is behind the
                    // one of a change being dispatched that reached this watcher already (as its state,
                    // or as a heartbeat at its position): what the client is told never goes back.
                    event = new GroupEvent.Heartbeat(offered);
                }
            }
            if (event instanceof GroupEvent.Reconnect reconnect && reconnect.position() < offered) {
                // Shutdown's position is the one dispatched so far, which is behind a change being
                // dispatched that reached this watcher already: what the client is told never goes back.
                event = new GroupEvent.Reconnect(offered, reconnect.reason());
            }
            if (event instanceof GroupEvent.Reconnect && pending instanceof GroupEvent.Changed) {
                // A state the client has not been sent: the last event's position comes after its
                // change, and a client that watched again from there would never get it. It goes first.
                lastAfterPending = event;
                lastOffered = true;
                sendPending();
                return;
            }
            pending = event;
            offered = Math.max(offered, event.position());
            lastOffered = event.last();
            sendPending();
        }

        /** The group was read: what waits is sent from now on. */
        synchronized void opened() {
            groupRead = true;
            sendPending();
        }

        /** Starts a sender unless one runs; under the lock. */
        private void sendPending() {
            if (groupRead && !sending && pending != null) {
                sending = true;
                senders.execute(this::send);
            }
        }

        private void send() {
            while (true) {
                GroupEvent event;
                synchronized (this) {
                    if (ended || pending == null || !sink.ready()) {
                        if (!ended && pending != null && stalledSince == 0) {
                            stalledSince = System.nanoTime() | 1; // never 0
                        }
                        sending = false;
                        return;
                    }
                    event = pending;
                    pending = lastAfterPending;
                    lastAfterPending = null;
                    stalledSince = 0;
                    // Sent from here on: a send that fails ends the watch, and none is stalled while one runs.
                    sentPosition = Math.max(sentPosition, event.position());
                }
                try {
                    sink.send(event);
                } catch (Exception e) {
                    log.debug("Watch of group {} ended: the client is gone ({})", groupId, e.toString());
                    cancel();
                    return;
                }
                if (event.last()) {
                    cancel();
                    return;
                }
            }
        }

        @Override
        public synchronized void resume() {
            sendPending();
        }

        /**
         * Ends the watch when an event has waited {@code stall-timeout} for a client that takes none
         * (gRPC: its flow-control window stays full): such a client would otherwise hold its place
         * among {@code max-watchers} until its connection dies. Not while a send runs.
         */
        void endIfStalled(long now) {
            OptionalLong resumeFrom;
            synchronized (this) {
                if (ended || sending || pending == null || stalledSince == 0
                        || now - stalledSince < properties.stallTimeout().toNanos()) {
                    return;
                }
                resumeFrom = sentPosition < 0 ? OptionalLong.empty() : OptionalLong.of(sentPosition);
                // Ended under the lock that a sender takes first, so no send can start after this.
                ended = true;
                pending = null;
                lastAfterPending = null;
            }
            unregister();
            log.info("Ended a watch of group {}: its client took no event for {} (tandem.watch.stall-timeout)",
                    groupId, properties.stallTimeout());
            try {
                sink.stalled(resumeFrom);
            } catch (RuntimeException e) {
                log.debug("Could not end the stalled watch's stream ({})", e.toString());
            }
        }

        @Override
        public void cancel() {
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
                pending = null;
                lastAfterPending = null;
            }
            unregister();
        }

        /**
         * Frees the watch's place, and its client's; once, after {@code ended} was set. Every end
         * comes here: cancel (the client left, a send failed, a last event was sent, open failed)
         * and a stall.
         */
        private void unregister() {
            watchersByGroup.computeIfPresent(groupId, (id, watchers) -> {
                watchers.remove(this);
                return watchers.isEmpty() ? null : watchers;
            });
            // The client's place first: once watching() reads 0, every client's count has drained too
            // (what a caller waiting for the watches to end, such as a test, may go on to rely on).
            giveClientPlaceBack(client);
            watching.decrementAndGet();
        }
    }
}
