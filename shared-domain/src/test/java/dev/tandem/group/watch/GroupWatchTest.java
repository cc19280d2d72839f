package dev.tandem.group.watch;

import dev.tandem.cache.TieredCache;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.GroupService;
import dev.tandem.group.GroupView;
import dev.tandem.group.NewGroup;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.UseTestDatabase;
import dev.tandem.user.NewUser;
import dev.tandem.user.UserService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The watch rule, against the real MariaDB and Redis: changes made through GroupService reach a
 * watcher through the invalidation log, as states, and a watch resumes, ends and is refused as
 * GroupWatch documents. The wires' tests only check how each maps this to its stream.
 */
// Each client may hold 2 of the instance's 3 watches; a test's watches each have a client of their
// own (anotherClient) unless it means one client's.
@SpringBootTest(properties = {"tandem.watch.heartbeat=300ms", "tandem.watch.max-watchers=3",
        "tandem.watch.max-watchers-per-client=2"})
@UseTestDatabase
class GroupWatchTest {

    /**
     * Not a timing assertion: only a bound so that a lost event fails the test instead of hanging it.
     * Above the log's hole timeout (30 s): a follower that starts while the log's first row is young
     * (this class deletes rows, and so leaves one for the next context) waits that long for the numbers
     * below it (LogFollower.startingFloor), and the positions it hands to watches stay behind meanwhile;
     * a bound of 30 s raced it, and two tests waiting for a position failed in make test.
     */
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Autowired GroupWatch watch;
    @Autowired GroupService groups;
    @Autowired UserService users;
    @Autowired TieredCache cache;
    @Autowired WatchProperties properties;
    @Autowired JdbcClient jdbc;
    @Autowired DataSource dataSource;

    private final List<GroupWatch.Watch> opened = new ArrayList<>();

    @AfterEach
    void cancelWatches() {
        opened.forEach(GroupWatch.Watch::cancel);
    }

    @Test
    void everyChangeReachesTheWatcherAsTheGroupsNewState() throws Exception {
        GroupView group = newGroup();
        Recorder client = open(group.id(), OptionalLong.empty());

        GroupEvent.Changed first = client.nextChange();
        assertThat(first.group()).isEqualTo(group);
        // (The group's creation may be handed over after the watch began: a heartbeat, not its state again.)
        groups.join(group.id(), newUser());
        GroupEvent.Changed joined = client.nextChange();
        rename(group.id(), "Renamed once");
        GroupEvent.Changed renamed = client.nextChange();

        assertThat(joined.group().memberCount()).isEqualTo(2);
        assertThat(renamed.group().name()).isEqualTo("Renamed once");
        assertThat(renamed.group().memberCount()).isEqualTo(2);
        assertThat(List.of(first.position(), joined.position(), renamed.position())).isSorted();
    }

    @Test
    void aChangeThatLeavesTheGroupAsTheClientHasItDoesNotSendTheStateAgain() throws Exception {
        GroupView group = newGroup();
        Recorder client = open(group.id(), OptionalLong.empty());
        client.nextChange();

        // A flush touches every watched group; this one reads as it was.
        cache.flushAll("GroupWatchTest");
        long flushed = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        Await.until("the flush offered to the watcher", WAIT, () -> watch.dispatched() >= flushed);
        rename(group.id(), "Renamed after the flush");

        // The next state the client gets is the rename's (the flush reached it as a heartbeat).
        assertThat(client.nextChange().group().name()).isEqualTo("Renamed after the flush");
    }

    @Test
    void aResumedWatchSendsTheStateOnlyWhenItMissedAChange() throws Exception {
        GroupView group = newGroup();
        Recorder before = open(group.id(), OptionalLong.empty());
        before.nextChange();
        rename(group.id(), "Seen before leaving");
        before.nextChange(g -> g.name().equals("Seen before leaving"));
        before.watch.cancel();
        // The position of a client that has seen every change so far. (Not the event's own position:
        // that lags while the follower waits for a hole below the change, and a resume from it then
        // rightly sends the state again.)
        long seen = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();

        // Nothing missed: the first state it gets is the next change's, not a repeat.
        Recorder upToDate = open(group.id(), OptionalLong.of(seen));
        rename(group.id(), "Changed after resuming");
        assertThat(upToDate.nextChange().group().name()).isEqualTo("Changed after resuming");
        upToDate.watch.cancel();

        // A change while away: the state is sent at once.
        rename(group.id(), "Changed while away");
        Recorder away = open(group.id(), OptionalLong.of(seen));
        assertThat(away.nextChange().group().name()).isEqualTo("Changed while away");
    }

    @Test
    void aPositionTheLogNoLongerCoversGetsTheState() throws Exception {
        GroupView group = newGroup();
        GroupView other = newGroup();
        Recorder watcher = open(group.id(), OptionalLong.empty());
        long seen = watcher.nextChange().position();
        watcher.watch.cancel();
        // Only the other group changes, and the rows right after the position are purged (as the
        // retention does): the log can no longer say that nothing touched the group.
        rename(other.id(), "Other 1");
        rename(other.id(), "Other 2");
        long newest = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        jdbc.sql("DELETE FROM cache_invalidations WHERE seq < ?").param(newest).update();

        assertThat(open(group.id(), OptionalLong.of(seen)).nextChange().group().id()).isEqualTo(group.id());
        // A position beyond the log (the log was recreated since): the same.
        assertThat(open(group.id(), OptionalLong.of(newest + 1_000_000)).nextChange().group().id())
                .isEqualTo(group.id());
    }

    @Test
    void deletionEndsTheWatchWithADeletedEvent() throws Exception {
        GroupView group = newGroup();
        Recorder client = open(group.id(), OptionalLong.empty());
        client.nextChange();
        int watching = watch.watching();

        groups.delete(group.id(), 0);

        assertThat(client.next(e -> e instanceof GroupEvent.Deleted))
                .isInstanceOfSatisfying(GroupEvent.Deleted.class, d -> assertThat(d.groupId()).isEqualTo(group.id()));
        Await.until("the ended watch to free its place", WAIT, () -> watch.watching() == watching - 1);
    }

    @Test
    void anUnknownGroupIsNotFoundAndHoldsNoPlace() {
        int watching = watch.watching();
        String client = anotherClient();
        assertThatThrownBy(() -> watch.open(999_999_999L, OptionalLong.empty(), client, new Recorder()))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(watch.watching()).isEqualTo(watching);
        assertThat(watch.clientsWatching()).doesNotContain(client);
    }

    /**
     * A heartbeat that falls while open still reads the group must not reach the client of a watch
     * that open then refuses: the client would see a heartbeat and then NOT_FOUND (make test failed
     * on it once, in the gRPC hostile-input table). The read is held on a real table lock while a
     * second, open watch receives two heartbeats: heartbeats run one after another, so the second
     * began after the first had been offered to every registered watcher, the refused one included.
     */
    @Test
    void aRefusedWatchHasSentNothingEvenIfAHeartbeatFellDuringItsRead() throws Exception {
        Recorder witness = open(newGroup().id(), OptionalLong.empty());
        witness.nextChange();
        long unknown = 900_000_000L + System.nanoTime() % 1_000_000L;
        Recorder refused = new Recorder();
        Future<?> opening = openWhileItsReadWaits(watch, unknown, refused, () -> {
            witness.events.clear();
            witness.next(e -> e instanceof GroupEvent.Heartbeat);
            witness.next(e -> e instanceof GroupEvent.Heartbeat);
        });

        assertThatThrownBy(() -> opening.get(WAIT.toSeconds(), TimeUnit.SECONDS)).cause()
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(refused.events).as("events sent to the refused watch's client").isEmpty();
    }

    /** The instance's cap holds across clients, each under its own: whoever comes next is refused. */
    @Test
    void watchesBeyondTheLimitAreRefusedUntilOneEnds() throws Exception {
        GroupView group = newGroup();
        for (int i = 0; i < properties.maxWatchers(); i++) {
            open(group.id(), OptionalLong.empty());
        }
        String refused = anotherClient();
        assertThatThrownBy(() -> track(watch.open(group.id(), OptionalLong.empty(), refused, new Recorder())))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
                    assertThat(e.retryAfter()).contains(properties.retryAfter());
                    assertThat(e.metadata()).isEqualTo(Map.of("max_watchers", String.valueOf(properties.maxWatchers())));
                });
        assertThat(watch.clientsWatching()).as("the refused client left counted").doesNotContain(refused);
        opened.getFirst().cancel();
        assertThat(open(group.id(), OptionalLong.empty()).nextChange().group().id()).isEqualTo(group.id());
    }

    /**
     * One client cannot take every place: at max-watchers-per-client it is refused as the instance's
     * cap refuses, naming its own limit, while another client still watches. Failed before: the
     * client's third watch was opened.
     */
    @Test
    void aClientAtItsCapIsRefusedWhileAnotherStillWatches() throws Exception {
        GroupView group = newGroup();
        String greedy = anotherClient();
        for (int i = 0; i < properties.maxWatchersPerClient(); i++) {
            openAs(greedy, group.id());
        }
        int watching = watch.watching();

        assertThatThrownBy(() -> track(watch.open(group.id(), OptionalLong.empty(), greedy, new Recorder())))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
                    assertThat(e.retryAfter()).contains(properties.retryAfter());
                    assertThat(e.metadata()).isEqualTo(
                            Map.of("max_watchers_per_client", String.valueOf(properties.maxWatchersPerClient())));
                    assertThat(e.getMessage()).contains("tandem.watch.max-watchers-per-client");
                });
        assertThat(watch.watching()).as("the refusal holds no place").isEqualTo(watching);

        assertThat(open(group.id(), OptionalLong.empty()).nextChange().group().id()).as("another client")
                .isEqualTo(group.id());
    }

    /**
     * A watch gives its client's place back however it ends: here cancelled by the client, and ended
     * by the group's deletion (the stall and the shutdown: their tests below); a place kept would
     * refuse the client's later watches.
     */
    @Test
    void aWatchThatEndsGivesItsClientsPlaceBack() throws Exception {
        GroupView kept = newGroup();
        GroupView doomed = newGroup();
        String client = anotherClient();
        Recorder cancelled = openAs(client, kept.id());
        Recorder deleted = openAs(client, doomed.id());
        deleted.nextChange();
        int watching = watch.watching();

        cancelled.watch.cancel();
        groups.delete(doomed.id(), 0);
        deleted.next(e -> e instanceof GroupEvent.Deleted);
        Await.until("the deleted group's watch to free its place", WAIT, () -> watch.watching() == watching - 2);

        for (int i = 0; i < properties.maxWatchersPerClient(); i++) {
            assertThat(openAs(client, kept.id()).nextChange().group().id()).isEqualTo(kept.id());
        }
    }

    /**
     * A send that fails (the client's connection broke) ends the watch, and with it the watch's
     * place and its client's, as a cancel does: nothing else would ever end it, its client is gone.
     */
    @Test
    void aWatchWhoseSendFailsGivesItsPlaceAndItsClientsBack() throws Exception {
        GroupView group = newGroup();
        String client = anotherClient();
        Recorder gone = openAs(client, group.id());
        gone.nextChange();
        int watching = watch.watching();
        assertThat(watch.clientsWatching()).contains(client);

        gone.broken = true;
        rename(group.id(), "Sent to a client that is gone");

        Await.until("the failed send to free the watch's place", WAIT, () -> watch.watching() == watching - 1);
        assertThat(watch.clientsWatching()).as("its client's place too").doesNotContain(client);
    }

    /**
     * Counts stay bounded by the clients watching now: one whose watches have all ended, or whose
     * every try was refused, holds no entry.
     */
    @Test
    void aClientWithNoWatchLeftHoldsNoEntry() throws Exception {
        GroupView group = newGroup();
        String client = anotherClient();
        List<Recorder> watches = new ArrayList<>();
        for (int i = 0; i < properties.maxWatchersPerClient(); i++) {
            watches.add(openAs(client, group.id()));
        }
        assertThatThrownBy(() -> track(watch.open(group.id(), OptionalLong.empty(), client, new Recorder())))
                .isInstanceOf(DomainException.class);
        assertThat(watch.clientsWatching()).contains(client);

        watches.forEach(w -> w.watch.cancel());

        assertThat(watch.clientsWatching()).doesNotContain(client);
    }

    @Test
    void anIdleWatchGetsHeartbeats() throws Exception {
        Recorder client = open(newGroup().id(), OptionalLong.empty());
        assertThat(client.next(e -> e instanceof GroupEvent.Heartbeat)).isNotNull();
    }

    @Test
    void aSlowClientGetsOnlyTheLatestState() throws Exception {
        GroupView group = newGroup();
        Recorder slow = new Recorder();
        slow.ready = false;
        slow.watch = track(watch.open(group.id(), OptionalLong.empty(), anotherClient(), slow));
        Recorder fast = open(group.id(), OptionalLong.empty());
        fast.nextChange();
        for (String name : List.of("Slow 1", "Slow 2", "Slow 3")) {
            rename(group.id(), name);
        }
        long last = fast.nextChange(g -> g.name().equals("Slow 3")).position();
        // The fast client may have it before the dispatcher has offered it to the slow one.
        Await.until("the last state offered to every watcher", WAIT, () -> watch.dispatched() >= last);

        slow.ready = true;
        slow.watch.resume();

        assertThat(slow.nextChange().group().name()).isEqualTo("Slow 3");
        assertThat(slow.events).noneMatch(e -> e instanceof GroupEvent.Changed);
    }

    /**
     * The periodic heartbeat carries the position dispatched so far; while a change is being
     * dispatched, a watcher may already hold that change at its (newer) position, as a heartbeat when
     * it left the group as the client has it. The events are offered here as the dispatcher and the
     * heartbeat would in that race, which real timing hits only now and then: a heartbeat behind must
     * neither replace the unsent one ahead of it nor follow it once it was sent.
     */
    @Test
    void thePositionAClientIsToldNeverGoesBack() throws Exception {
        GroupView group = newGroup();
        Recorder client = pausingAfterItsFirstState();
        client.watch = track(watch.open(group.id(), OptionalLong.empty(), anotherClient(), client));
        GroupView state = client.nextChange().group();

        long ahead = watch.dispatched() + 1_000;
        watch.offer(group.id(), new GroupEvent.Changed(ahead, state));
        watch.offer(group.id(), new GroupEvent.Heartbeat(watch.dispatched()));
        client.ready = true;
        client.watch.resume();
        assertThat(client.next(e -> e instanceof GroupEvent.Heartbeat).position()).as("unsent").isEqualTo(ahead);

        long further = ahead + 1_000;
        watch.offer(group.id(), new GroupEvent.Changed(further, state));
        client.next(e -> e.position() == further);
        watch.offer(group.id(), new GroupEvent.Heartbeat(watch.dispatched()));
        assertThat(client.next(e -> e instanceof GroupEvent.Heartbeat).position()).as("sent").isEqualTo(further);
    }

    /**
     * A state dispatched to a watch while its first read of the group runs is not replaced by that
     * read: both carry the position dispatched so far when two passes report one position (a hole
     * below stays open), and the dispatched one was read after the watcher was registered, so it is
     * at least as new. The read is held on a table lock and the dispatch offered as the dispatcher
     * would. Failed before: the first read's older state replaced the dispatched one unsent.
     */
    @Test
    void aStateDispatchedWhileTheFirstReadRunsIsNotReplacedByIt() throws Exception {
        GroupView group = newGroup();
        // The group's creation dispatched first: a real dispatch of it still running would read the
        // group after the lock and offer it at a later position than the one offered here, rightly
        // replacing it (it failed so once in make test, after a restart test had left the position low).
        long created = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        Await.until("the group's creation dispatched", WAIT, () -> watch.dispatched() >= created);
        GroupView dispatchedMeanwhile = new GroupView(group.id(), "Renamed meanwhile", group.subject(), group.description(),
                group.capacity(), group.ownerId(), group.ownerName(), group.memberCount(), group.averageRating(),
                group.ratingCount(), group.nextSessions(), group.version() + 1, group.createTime());
        Recorder client = new Recorder();
        openWhileItsReadWaits(watch, group.id(), client,
                () -> watch.offer(group.id(), new GroupEvent.Changed(watch.dispatched(), dispatchedMeanwhile)))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(client.nextChange().group().name()).isEqualTo("Renamed meanwhile");
    }

    /**
     * A heartbeat at a position past the one the first read started from (the dispatcher moved on
     * through other groups' changes while the read waited) does not take the first state's place:
     * no change of this group was dispatched in between (it would be the state), so the state read
     * is the group's at the heartbeat's position too, and goes at that position. Failed before: the
     * state looked older than what had been offered and was dropped, the client got the heartbeat
     * alone and no state until the group next changed (found by a read-only review).
     */
    @Test
    void aHeartbeatAheadOfTheFirstReadDoesNotTakeTheFirstStatesPlace() throws Exception {
        GroupView group = newGroup();
        long created = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        Await.until("the group's creation dispatched", WAIT, () -> watch.dispatched() >= created);
        Recorder client = new Recorder();
        long[] ahead = new long[1];
        openWhileItsReadWaits(watch, group.id(), client, () -> {
            ahead[0] = watch.dispatched() + 1;
            watch.offer(group.id(), new GroupEvent.Heartbeat(ahead[0]));
        }).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        GroupEvent.Changed first = client.nextChange();
        assertThat(first.group().id()).isEqualTo(group.id());
        assertThat(first.position()).as("never behind what the client was offered").isGreaterThanOrEqualTo(ahead[0]);
    }

    /**
     * A recreated log numbers its rows from 1 again, below every position a watch was told: each
     * watch ends with a Reconnect (as at shutdown), and a new one gets the state and the changes
     * after. The follower's restart (LogFollower, "log-restarted") is reported here as the follower
     * reports it, a pass at a position below the one dispatched: emptying the shared test database's
     * log would hand its numbers out again under the relay markers the other tests' rows left in
     * Redis. Failed before, with the log emptied by TRUNCATE: no change reached the open watch (each
     * state looked older than the positions it had been offered), only heartbeats.
     */
    @Test
    void aWatchEndsWhenTheLogRestartsAndANewOneFollowsTheLogOn() throws Exception {
        GroupView group = newGroup();
        Recorder before = open(group.id(), OptionalLong.empty());
        before.nextChange();
        Await.until("a position to restart below", WAIT, () -> watch.dispatched() > 0);

        watch.taken(List.of(), 0);

        assertThat(before.next(e -> e.last() || e instanceof GroupEvent.Changed)).isInstanceOf(GroupEvent.Reconnect.class);
        Recorder after = open(group.id(), OptionalLong.empty());
        after.nextChange();
        rename(group.id(), "Renamed after the restart");
        assertThat(after.nextChange(g -> g.name().equals("Renamed after the restart")).group().name())
                .isEqualTo("Renamed after the restart");
    }

    /**
     * The follower's next pass can report a position before the dispatcher has taken the restart's
     * (a loaded machine): the two fold into one batch, whose position alone no longer shows that the
     * log went back. The watch still ends. Here the dispatcher is held on a read of the group (a
     * flush emptied the cache, and the table is locked) while the restart and the next pass arrive.
     * Failed before: no Reconnect came (and the test above failed once in make test when the real
     * follower's pass came that soon).
     */
    @Test
    void aRestartFollowedAtOnceByAnotherPassStillEndsTheWatch() throws Exception {
        GroupView group = newGroup();
        Recorder client = open(group.id(), OptionalLong.empty());
        client.nextChange();
        Await.until("a position to restart below", WAIT, () -> watch.dispatched() > 0);

        try (Connection locker = dataSource.getConnection(); Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES study_groups WRITE");
            try {
                cache.flushAll("test-restart-while-dispatching");
                long flushed = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
                Await.until("the dispatcher's read of the group to wait for the lock", WAIT, () -> jdbc.sql(
                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table%' "
                                + "AND INFO LIKE ?").param("%" + group.id() + "%").query(Long.class).single() > 0);
                // the restart, then a pass that reports where the held batch will leave the dispatcher
                watch.taken(List.of(), 0);
                watch.taken(List.of(), flushed);
            } finally {
                lock.execute("UNLOCK TABLES");
            }
        }

        assertThat(client.next(GroupEvent::last)).isInstanceOf(GroupEvent.Reconnect.class);
    }

    /**
     * At shutdown a slow client may not have been sent the group's latest state yet. The last event
     * names the position dispatched so far, after that state's change: had it replaced the unsent
     * state, the client would watch again from there and never get it. The state goes first. Failed
     * before: the client's next event was the Reconnect.
     */
    @Test
    void aStateNotSentYetGoesBeforeTheLastEventAtShutdown() throws Exception {
        onAWatchOfItsOwn(properties, closing -> {
            GroupView group = newGroup();
            Recorder client = pausingAfterItsFirstState();
            client.watch = closing.open(group.id(), OptionalLong.empty(), anotherClient(), client);
            client.nextChange();
            rename(group.id(), "Renamed before the shutdown");
            long renamed = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
            Await.until("the rename offered to the paused client", WAIT, () -> closing.dispatched() >= renamed);

            closing.shutDown();
            client.ready = true;
            client.watch.resume();

            assertThat(client.nextChange().group().name()).isEqualTo("Renamed before the shutdown");
            assertThat(client.next(GroupEvent::last)).isInstanceOf(GroupEvent.Reconnect.class);
        });
    }

    /**
     * The last event at shutdown carries the position dispatched so far, which can be behind a change
     * being dispatched that reached the watcher already (offered here as dispatch would): the client
     * is told that change's position, never one it has already passed. Failed before: the Reconnect
     * named the position dispatched, 1,000 behind the one the client had been sent.
     */
    @Test
    void theLastEventNeverNamesAPositionBehindOneTheClientWasSent() throws Exception {
        onAWatchOfItsOwn(properties, closing -> {
            GroupView group = newGroup();
            // A new watch has dispatched nothing (position 0) until the follower's next pass reports
            // the log's position, thousands in this module's database: a pass landing before the
            // offer below was sent replaced it, unsent, with a heartbeat at that position, as it
            // should (one pending event, the newest), and the test waited for 'ahead' in vain
            // (make test, 2026-11-30). So the log's position is dispatched first.
            long created = jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
            Await.until("the group's creation dispatched", WAIT, () -> closing.dispatched() >= created);
            Recorder client = new Recorder();
            client.watch = closing.open(group.id(), OptionalLong.empty(), anotherClient(), client);
            GroupView state = client.nextChange().group();
            long ahead = closing.dispatched() + 1_000;
            closing.offer(group.id(), new GroupEvent.Changed(ahead, state));
            client.next(e -> e.position() == ahead);

            closing.shutDown();

            assertThat(client.next(GroupEvent::last).position()).isEqualTo(ahead);
        });
    }

    /**
     * Shutdown begins while a watch's open reads the group (past its check of shutting down): the
     * last event reaches the watcher before its first state. The client has no state yet, and the
     * last event's position says it has seen everything up to it: the state goes first. Failed
     * before: the first state was dropped, the Reconnect was all the client got, and watching again
     * from its position would not have sent the state either.
     */
    @Test
    void aWatchWhoseShutdownCameDuringItsFirstReadGetsItsStateFirst() throws Exception {
        onAWatchOfItsOwn(properties, closing -> {
            GroupView group = newGroup();
            Recorder client = new Recorder();
            openWhileItsReadWaits(closing, group.id(), client, closing::shutDown).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(client.next(e -> true)).isInstanceOf(GroupEvent.Changed.class);
            assertThat(client.next(e -> true)).isInstanceOf(GroupEvent.Reconnect.class);
        });
    }

    /**
     * A client that takes nothing (gRPC: its window stays full, the call is never ready again) would
     * hold its place among max-watchers until its connection died: once an event has waited
     * stall-timeout for it, the watch ends, frees its place and tells the wire where the client can
     * watch again from, the last position it was sent. A watch of its own, with a 1-s stall timeout,
     * so the other tests' paused clients are not ended. Failed before: the place was still held
     * after 30 s.
     */
    @Test
    void aClientThatTakesNothingLosesItsWatchAfterTheStallTimeout() throws Exception {
        onAWatchOfItsOwn(new WatchProperties(properties.heartbeat(), properties.maxWatchers(), properties.maxWatchersPerClient(),
                properties.retryAfter(), Duration.ofSeconds(1)), stalling -> {
            GroupView group = newGroup();
            Recorder client = pausingAfterItsFirstState();
            stalling.open(group.id(), OptionalLong.empty(), anotherClient(), client);
            long sent = client.nextChange().position();
            rename(group.id(), "Never taken");

            Await.until("the stalled watch to free its place", WAIT, () -> stalling.watching() == 0);
            assertThat(stalling.clientsWatching()).as("its client's place too").isEmpty();
            assertThat(client.stalledWith.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).as("where to watch again from")
                    .isEqualTo(OptionalLong.of(sent));
            assertThat(client.events).as("nothing sent while it took nothing").isEmpty();
        });
    }

    @Test
    void shutdownEndsEveryWatchAndRefusesNewOnes() throws Exception {
        onAWatchOfItsOwn(properties, closing -> {
            GroupView group = newGroup();
            Recorder client = new Recorder();
            closing.open(group.id(), OptionalLong.empty(), anotherClient(), client);
            client.nextChange();

            closing.shutDown();

            assertThat(client.next(e -> e.last())).isInstanceOf(GroupEvent.Reconnect.class);
            Await.until("the ended watch to free its place", WAIT, () -> closing.watching() == 0);
            assertThat(closing.clientsWatching()).as("its client's place too").isEmpty();
            assertThatThrownBy(() -> closing.open(group.id(), OptionalLong.empty(), anotherClient(), new Recorder()))
                    .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
        });
    }

    @Test
    void withoutTheLogThereIsNothingToWatch() {
        GroupWatch withoutLog = new GroupWatch(groups, TieredCache.disabled(), properties);
        try {
            assertThatThrownBy(() -> withoutLog.open(newGroup().id(), OptionalLong.empty(), anotherClient(), new Recorder()))
                    .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNIMPLEMENTED));
        } finally {
            withoutLog.destroy();
        }
    }

    @Test
    void aPositionIsANonNegativeInteger() {
        assertThat(GroupWatch.position(null, "since")).isEmpty();
        assertThat(GroupWatch.position(" ", "since")).isEmpty();
        assertThat(GroupWatch.position("42", "since")).hasValue(42);
        for (String bad : Set.of("-1", "1e3", "x", "1.5", "9999999999999999999")) {
            assertThatThrownBy(() -> GroupWatch.position(bad, "Last-Event-ID"))
                    .isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                        assertThat(e.violations().getFirst().field()).isEqualTo("Last-Event-ID");
                    });
        }
        // Echoed cut short between characters: cut at 40 UTF-16 units, the 20th emoji lost its second half.
        String emoji = "\uD83D\uDE00";
        assertThatThrownBy(() -> GroupWatch.position("x" + emoji.repeat(60), "since"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations().getFirst().description())
                        .endsWith(", got 'x" + emoji.repeat(39) + "...'"));
    }

    // ---- helpers -----------------------------------------------------------------------------

    private Recorder open(long groupId, OptionalLong since) {
        Recorder recorder = new Recorder();
        recorder.watch = track(watch.open(groupId, since, anotherClient(), recorder));
        return recorder;
    }

    /** A watch of {@code groupId} from its start, by {@code client}. */
    private Recorder openAs(String client, long groupId) {
        Recorder recorder = new Recorder();
        recorder.watch = track(watch.open(groupId, OptionalLong.empty(), client, recorder));
        return recorder;
    }

    /** A test on a GroupWatch of its own. */
    @FunctionalInterface
    private interface OnAWatch {
        void run(GroupWatch watch) throws Exception;
    }

    /**
     * Runs {@code test} on a GroupWatch of its own, with {@code settings}, destroyed after: for a
     * test that shuts its watch down or changes a setting the others must keep.
     */
    private void onAWatchOfItsOwn(WatchProperties settings, OnAWatch test) throws Exception {
        GroupWatch own = new GroupWatch(groups, cache, settings);
        try {
            test.run(own);
        } finally {
            own.destroy();
        }
    }

    /** A client that takes its first state, then nothing until it is made ready and resumed. */
    private static Recorder pausingAfterItsFirstState() {
        Recorder client = new Recorder();
        client.pauseAfterNext = true;
        return client;
    }

    /** What a test does while a watch's open waits. */
    @FunctionalInterface
    private interface Meanwhile {
        void run() throws Exception;
    }

    /**
     * Opens a watch of {@code groupId} on {@code on} into {@code client} on a thread of its own while study_groups
     * is locked, runs {@code meanwhile} once the open's read of the group waits for the lock, then
     * lets the read go. Returns the open, ended (done or failed).
     */
    private Future<?> openWhileItsReadWaits(GroupWatch on, long groupId, Recorder client, Meanwhile meanwhile)
            throws Exception {
        Future<?> opening;
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
             Connection locker = dataSource.getConnection(); Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES study_groups WRITE");
            try {
                opening = executor.submit(() -> client.watch = track(on.open(groupId, OptionalLong.empty(), anotherClient(), client)));
                // The connector sends the id as a literal, so this finds the watch's own read.
                Await.until("the watch's read of the group to wait for the lock", WAIT, () -> jdbc.sql(
                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table%' "
                                + "AND INFO LIKE ?").param("%" + groupId + "%").query(Long.class).single() > 0);
                meanwhile.run();
            } finally {
                lock.execute("UNLOCK TABLES");
            }
        }
        return opening;
    }

    /** A client of its own for each watch, unless a test means several watches of one client. */
    private static String anotherClient() {
        return "addr:192.0.2." + CLIENTS.incrementAndGet();
    }

    private static final AtomicInteger CLIENTS = new AtomicInteger();

    /**
     * Cancelled after the test. A watch a test expects refused is tracked too: opened after all (the
     * rule broken), it would otherwise hold a place in the next test.
     */
    private GroupWatch.Watch track(GroupWatch.Watch w) {
        opened.add(w);
        return w;
    }

    private GroupView newGroup() {
        return groups.create(new NewGroup("Watched group", "algorithms", "", 10, newUser()));
    }

    private long newUser() {
        return users.create(new NewUser("watcher", "watcher-" + System.nanoTime() + "@example.test")).id();
    }

    private void rename(long id, String name) {
        long version = groups.get(id).version();
        groups.update(new GroupChanges(id, new GroupFields(name, null, null, 0), Set.of("name"), version));
    }

    /**
     * A client: records what it is sent, and takes events only while {@link #ready}; with
     * {@link #pauseAfterNext}, it stops taking them once it has one more (as a client whose buffers
     * fill would), so nothing is in flight to it while it is not ready.
     */
    static final class Recorder implements WatchSink {
        final BlockingQueue<GroupEvent> events = new LinkedBlockingQueue<>();
        /** What {@link #stalled} was told, if the watch ended so. */
        final BlockingQueue<OptionalLong> stalledWith = new LinkedBlockingQueue<>();
        volatile boolean ready = true;
        volatile boolean pauseAfterNext;
        /** Every send fails from now on, as to a client whose connection broke. */
        volatile boolean broken;
        GroupWatch.Watch watch;

        @Override
        public boolean ready() {
            return ready;
        }

        @Override
        public void send(GroupEvent event) {
            if (broken) {
                throw new IllegalStateException("the client's connection is broken");
            }
            if (pauseAfterNext) {
                ready = false;
                pauseAfterNext = false;
            }
            events.add(event);
        }

        @Override
        public void stalled(OptionalLong resumeFrom) {
            stalledWith.add(resumeFrom);
        }

        GroupEvent next(Predicate<GroupEvent> wanted) throws InterruptedException {
            long until = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < until) {
                GroupEvent e = events.poll(100, TimeUnit.MILLISECONDS);
                if (e != null && wanted.test(e)) {
                    return e;
                }
                if (e != null && e.last()) {
                    throw new AssertionError("the watch ended with " + e + " before the event wanted");
                }
            }
            throw new AssertionError("no such event within " + WAIT);
        }

        GroupEvent.Changed nextChange() throws InterruptedException {
            return nextChange(g -> true);
        }

        GroupEvent.Changed nextChange(Predicate<GroupView> wanted) throws InterruptedException {
            return (GroupEvent.Changed) next(e -> e instanceof GroupEvent.Changed c && wanted.test(c.group()));
        }
    }
}
