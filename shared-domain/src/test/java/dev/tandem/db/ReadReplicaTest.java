package dev.tandem.db;

import dev.tandem.DomainTestApplication;
import dev.tandem.cache.TieredCache;
import dev.tandem.deadline.RequestDeadline;
import dev.tandem.deadline.RequestDeadlines;
import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.GroupService;
import dev.tandem.group.GroupSummary;
import dev.tandem.group.GroupView;
import dev.tandem.group.NewGroup;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.ReplicationPair;
import dev.tandem.user.NewUser;
import dev.tandem.user.UserService;
import dev.tandem.user.UserView;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The read replica against real replication: a MariaDB primary and a MariaDB replica of it (GTID
 * replication on loopback, {@link ReplicationPair}), and two service instances configured with the
 * replica (their own contexts and pools, one Redis for L2 and invalidations): the writer with both
 * cache levels, the reader with L2 only.
 * <ul>
 * <li>reads are served by the replica: a row changed on the replica alone shows through a read;</li>
 * <li>writes go to the primary (the application's user cannot write the read-only replica at all);</li>
 * <li>while the replica lags (its SQL thread stopped), a write is read back at once by its writer and
 * by the other instance, through the cache and around it, and the cache never holds the replica's
 * old value; after the replica catches up, every read equals the primary and reads use the replica
 * again.</li>
 * </ul>
 * Both servers are stopped at the end, also when a test fails.
 */
class ReadReplicaTest {

    private static final String DB = "tandem_replicas_test";
    private static final String REDIS_SCOPE = System.getProperty("tandem.test.db-name", "tandem_test") + "_replicas";

    private static ReplicationPair pair;
    private static final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private static Node writer;
    private static Node reader;

    /** One service instance. */
    record Node(GroupService groups, UserService users, TieredCache cache, ReplicaRoutingDataSource routing,
                DatabaseHealthIndicator health, RequestDeadlines deadlines, MeterRegistry meters) {
        static Node start(String name, String cacheMode, String... settings) {
            List<String> args = new ArrayList<>(List.of("--tandem.db.port=" + pair.primary.port,
                            "--tandem.db.name=" + DB,
                            "--tandem.db.pool-size=4",
                            "--tandem.db.replica.host=127.0.0.1",
                            "--tandem.db.replica.port=" + pair.replica.port,
                            "--tandem.seed.mode=off",
                            "--tandem.cache.mode=" + cacheMode,
                            "--tandem.cache.instance-id=" + name + "-" + UUID.randomUUID(),
                            // The shared Redis: the key prefix is this checkout's (its test database's name),
                            // so that another checkout running this test at the same time keeps its own keys.
                            "--tandem.cache.redis.key-prefix=tandem:cache:" + REDIS_SCOPE + ":",
                            "--spring.main.banner-mode=off"));
            args.addAll(List.of(settings));
            ConfigurableApplicationContext context = new SpringApplicationBuilder(DomainTestApplication.class)
                    .web(WebApplicationType.NONE)
                    .run(args.toArray(String[]::new));
            contexts.add(context);
            return new Node(context.getBean(GroupService.class), context.getBean(UserService.class),
                    context.getBean(TieredCache.class), context.getBean(ReplicaRoutingDataSource.class),
                    context.getBean(DatabaseHealthIndicator.class), context.getBean(RequestDeadlines.class),
                    context.getBean(MeterRegistry.class));
        }
    }

    @BeforeAll
    static void startReplicationAndInstances() {
        pair = ReplicationPair.start();
        try {
            writer = Node.start("writer", "hybrid");
            // Without L1: another instance's L1 may serve an old value for up to the cache's
            // staleness bound after a write (the cache's own guarantee, replica or not); L2 is
            // invalidated before the write returns, so a read through it must see the write at once.
            reader = Node.start("reader", "redis");
            writer.cache.flushAll("ReadReplicaTest starts");
        } catch (RuntimeException | Error e) {
            stopEverything();
            throw e;
        }
    }

    @AfterAll
    static void stopEverything() {
        try {
            contexts.forEach(ConfigurableApplicationContext::close);
        } finally {
            if (pair != null) {
                pair.close();
            }
        }
    }

    @Test
    void readsAreServedByTheReplicaAndWritesByThePrimary() {
        GroupView group = newGroup("routing");
        assertThat(pair.primary.sql("SELECT name FROM " + DB + ".study_groups WHERE id = " + group.id()))
                .as("the write is on the primary").isEqualTo(group.name());
        pair.awaitCaughtUp();

        // Changed on the replica alone (root may write despite read_only; the replica has no binary
        // log, so nothing flows back): only a read served by the replica can show it.
        pair.replica.sql("UPDATE " + DB + ".study_groups SET description = 'only on the replica' WHERE id = " + group.id());
        try {
            assertThat(servedByReplica(reader, () -> reader.groups.get(group.id()),
                    () -> reader.cache.invalidateAfterCommit(GroupCaches.group(group.id()))).description())
                    .isEqualTo("only on the replica");
        } finally {
            pair.replica.sql("UPDATE " + DB + ".study_groups SET description = '' WHERE id = " + group.id());
            writer.cache.flushAll("the replica's divergence is undone");
        }
        assertThat(reader.groups.get(group.id()).description()).isEmpty();

        Health health = writer.health.health(true);
        assertThat(health.getStatus().getCode()).isEqualTo("UP");
        @SuppressWarnings("unchecked")
        Map<String, Object> replica = (Map<String, Object>) health.getDetails().get("replica");
        assertThat(replica).containsEntry("status", "UP");
    }

    @Test
    void aWriteIsReadBackAtOnceWhileTheReplicaLagsAndTheCacheNeverKeepsTheOldValue() {
        GroupView group = newGroup("lagging");
        pair.awaitCaughtUp();
        // Cached everywhere (L2 and both L1s) from the replica, which is up to date now.
        assertThat(writer.groups.get(group.id()).name()).isEqualTo(group.name());
        assertThat(reader.groups.get(group.id()).name()).isEqualTo(group.name());
        assertThat(pageRow(reader, group).name()).isEqualTo(group.name());

        pair.pauseApplying();
        String renamed;
        try {
            renamed = group.name() + " renamed";
            GroupView updated = writer.groups.update(new GroupChanges(group.id(),
                    new GroupFields(renamed, group.subject(), group.description(), group.capacity()),
                    Set.of("name"), group.version()));
            assertThat(updated.name()).isEqualTo(renamed);
            assertThat(pair.replica.sql("SELECT name FROM " + DB + ".study_groups WHERE id = " + group.id()))
                    .as("the replica lags: it still has the old name").isEqualTo(group.name());

            long behind = primaryReadsWhileBehind();
            for (int round = 0; round < 5; round++) {
                // Every read of both instances sees the write: from the caches (invalidated by the
                // write) and, on each miss, from a fill that must not read the lagging replica.
                for (Node node : round % 2 == 0 ? List.of(writer, reader) : List.of(reader, writer)) {
                    assertThat(node.groups.get(group.id()).name()).isEqualTo(renamed);
                    assertThat(pageRow(node, group).name()).isEqualTo(renamed);
                }
                // Forces the next reads to miss everywhere, as an expiry or another write would.
                writer.cache.invalidateAfterCommit(GroupCaches.group(group.id()).and(GroupCaches.pagesOf(group.subject())));
            }
            assertThat(primaryReadsWhileBehind()).as("the misses were served by the primary").isGreaterThan(behind);
            assertThat(pair.replica.sql("SELECT name FROM " + DB + ".study_groups WHERE id = " + group.id()))
                    .as("the replica still lags after all those reads").isEqualTo(group.name());
        } finally {
            pair.resumeApplying();
        }
        pair.awaitCaughtUp();

        String onPrimary = pair.primary.sql("SELECT name FROM " + DB + ".study_groups WHERE id = " + group.id());
        assertThat(onPrimary).isEqualTo(renamed);
        for (Node node : List.of(writer, reader)) {
            assertThat(node.groups.get(group.id()).name()).isEqualTo(onPrimary);
            assertThat(pageRow(node, group).name()).isEqualTo(onPrimary);
        }
        // Caught up, misses read the replica again, and it agrees with the primary.
        Runnable evict = () -> writer.cache.invalidateAfterCommit(GroupCaches.group(group.id()));
        evict.run();
        assertThat(servedByReplica(reader, () -> reader.groups.get(group.id()), evict).name()).isEqualTo(onPrimary);
        assertThat(pair.replica.sql("SELECT name FROM " + DB + ".study_groups WHERE id = " + group.id())).isEqualTo(onPrimary);
    }

    @Test
    void aNewUserIsFoundByTheOtherInstanceWhileTheReplicaLags() {
        pair.awaitCaughtUp();
        pair.pauseApplying();
        try {
            UserView created = writer.users.create(new NewUser("Lagging Reader", "lag-" + UUID.randomUUID() + "@example.test"));
            // A "not found" from the lagging replica would even be cached (L1's negative entries).
            assertThat(reader.users.get(created.id())).isEqualTo(created);
            assertThat(writer.users.get(created.id())).isEqualTo(created);
        } finally {
            pair.resumeApplying();
        }
    }

    @Test
    void aReplicaThatIsDownDegradesReadsToThePrimaryAndHealthSaysSo() {
        GroupView group = newGroup("replica-down");
        pair.awaitCaughtUp();
        pair.replica.stop();
        try {
            long unavailable = reader.routing.reads().primaryReplicaUnavailable();
            assertThat(reader.groups.get(group.id()).name()).isEqualTo(group.name());
            assertThat(reader.routing.reads().primaryReplicaUnavailable()).isGreaterThan(unavailable);

            Health health = reader.health.health(true);
            assertThat(health.getStatus().getCode()).as("every request can still be served").isEqualTo("UP");
            @SuppressWarnings("unchecked")
            Map<String, Object> replica = (Map<String, Object>) health.getDetails().get("replica");
            assertThat(replica).containsEntry("status", "DOWN").containsKey("error");
        } finally {
            pair.restartReplica();
        }
        pair.awaitCaughtUp();
        // Back by itself: the pool reconnects and reads use the replica again.
        assertThat(servedByReplica(reader, () -> reader.groups.get(group.id()),
                () -> reader.cache.invalidateAfterCommit(GroupCaches.group(group.id()))).name())
                .isEqualTo(group.name());
    }

    @Test
    void aReplicaThatHangsDegradesReadsToThePrimaryInsteadOfHangingThem() throws Exception {
        GroupView group = newGroup("replica-hung");
        Runnable evict = () -> reader.cache.invalidateAfterCommit(GroupCaches.group(group.id()));
        // A replica connection just used goes back to the pool and is handed out again unchecked
        // (Hikari checks only a connection idle for 0.5 s): the next fence runs on it at once.
        servedByReplica(reader, () -> reader.groups.get(group.id()), evict);
        evict.run();
        long unavailable = reader.routing.reads().primaryReplicaUnavailable();
        pair.replica.pause();
        ExecutorService readers = Executors.newSingleThreadExecutor();
        try {
            // No request deadline here, as for a refresh ahead: only the fence's own bound ends the wait.
            Future<GroupView> read = readers.submit(() -> reader.groups.get(group.id()));
            assertThat(read.get(15, TimeUnit.SECONDS).name())
                    .as("a frozen replica (SIGSTOP) is skipped like a stopped one").isEqualTo(group.name());
            assertThat(reader.routing.reads().primaryReplicaUnavailable()).isGreaterThan(unavailable);
        } finally {
            pair.replica.resume();
            readers.shutdownNow();
        }
        pair.awaitCaughtUp();
        assertThat(servedByReplica(reader, () -> reader.groups.get(group.id()), evict).name()).isEqualTo(group.name());
    }

    @Test
    void aDeadReplicaOpensTheBreakerSoReadsGoStraightToThePrimaryUntilItIsBack() {
        ReaderMiss miss = ReaderMiss.ofNewGroup(reader, "replica-breaker");
        String name = miss.group().name();
        pair.replica.stop();
        try {
            // Each miss waits for a replica connection (connection-timeout) and reads the primary,
            // until enough of them failed for the breaker (a read then no longer counts as unavailable).
            for (int tries = 0; tries < 15; tries++) {
                long before = reader.routing.reads().primaryReplicaUnavailable();
                assertThat(miss.get().name()).isEqualTo(name);
                if (reader.routing.reads().primaryReplicaUnavailable() == before) {
                    break;
                }
            }
            long unavailable = reader.routing.reads().primaryReplicaUnavailable();
            double skipped = readsSkippingTheReplica(reader);
            for (int i = 0; i < 10; i++) {
                assertThat(miss.get().name()).isEqualTo(name);
            }
            assertThat(reader.routing.reads().primaryReplicaUnavailable())
                    .as("with the breaker open, reads no longer try the dead replica").isEqualTo(unavailable);
            assertThat(readsSkippingTheReplica(reader)).as("each read skipped it").isEqualTo(skipped + 10);
            assertThat(breakerState(reader)).as("the breaker's gauge (2: open)").isEqualTo(2);
            assertThat(replicaHealth(reader)).as("health shows the open breaker")
                    .containsEntry("status", "DOWN").containsEntry("breaker", "OPEN");
        } finally {
            pair.restartReplica();
        }
        pair.awaitCaughtUp();
        // After the open wait the breaker lets a read try the replica (half-open); it answers, and
        // the breaker closes: reads use the replica again.
        assertThat(miss.servedByReplica().name()).isEqualTo(name);
        assertThat(breakerState(reader)).as("closed again").isEqualTo(0);
        assertThat(replicaHealth(reader)).containsEntry("status", "UP").containsEntry("breaker", "CLOSED");
    }

    /**
     * A read whose deadline is shorter than max-wait, while the replica lags: the fence waits half of
     * what the deadline leaves, finds the replica behind, and the primary answers in time. The
     * replica answered ("behind"), so it is neither unavailable nor a failure to its breaker.
     */
    @Test
    void aReadWithADeadlineShorterThanMaxWaitIsAnsweredByThePrimaryWhileTheReplicaLags() {
        // Its own instance: a max-wait far beyond the deadline, so that the wait cannot end first by chance.
        Node patient = Node.start("patient", "redis", "--tandem.db.replica.max-wait=60s");
        ReaderMiss miss = ReaderMiss.ofNewGroup(patient, "replica-deadline-lag");
        String name = miss.group().name();

        pair.pauseApplying();
        try {
            newGroup("replica-deadline-lag"); // the replica lags behind this write from now on
            ReplicaRoutingDataSource.Reads before = patient.routing.reads();
            for (int i = 0; i < 3; i++) {
                miss.evict().run(); // outside the deadline: it writes the invalidation log
                assertThat(within(patient, Duration.ofSeconds(4), miss.read()).name()).as("read " + i).isEqualTo(name);
            }
            ReplicaRoutingDataSource.Reads after = patient.routing.reads();
            assertThat(after.primaryReplicaBehind() - before.primaryReplicaBehind())
                    .as("each read found the replica behind and read the primary").isEqualTo(3);
            assertThat(after.primaryReplicaUnavailable()).as("a lagging replica is not unavailable")
                    .isEqualTo(before.primaryReplicaUnavailable());
            assertThat(breakerState(patient)).as("the breaker stays closed").isEqualTo(0);
        } finally {
            pair.resumeApplying();
        }
        pair.awaitCaughtUp();
        assertThat(miss.servedByReplica().name()).isEqualTo(name);
    }

    /**
     * A request's deadline ending a replica attempt (here its wait for a replica connection) is no
     * verdict on the replica; the replica is checked in the background under its own bounds instead,
     * so a dead one opens the breaker even when every client's deadline is short, after which those
     * clients are served by the primary at once instead of failing.
     */
    @Test
    void aShortDeadlineEndingAReplicaAttemptDoesNotCountAgainstTheReplica() {
        ReaderMiss miss = ReaderMiss.ofNewGroup(reader, "replica-deadline");
        String name = miss.group().name();

        pair.replica.stop();
        try {
            // Shorter than connection-timeout: every one of these reads ends waiting for a replica connection.
            Await.until("short-deadline reads alone open the breaker", Duration.ofSeconds(60), () -> {
                miss.evict().run();
                try {
                    within(reader, Duration.ofMillis(300), miss.read());
                } catch (RuntimeException deadlineExceeded) {
                    // expected until the breaker opens
                }
                return breakerState(reader) == 2;
            });
            miss.evict().run();
            assertThat(within(reader, Duration.ofMillis(300), miss.read()).name())
                    .as("the breaker open, a short-deadline read is served by the primary").isEqualTo(name);
        } finally {
            pair.restartReplica();
        }
        pair.awaitCaughtUp();
        assertThat(miss.servedByReplica().name()).isEqualTo(name);
    }

    @Test
    void aReplicaOverAPrimaryWithoutBinaryLogStopsTheStartNamingWhatIsMissing() {
        // The project's own MariaDB runs without --log-bin: no position to fence replica reads at.
        // The service started, and every read that missed the cache failed with an internal error.
        SpringApplicationBuilder service = new SpringApplicationBuilder(DomainTestApplication.class)
                .web(WebApplicationType.NONE);
        assertThatThrownBy(() -> service.run(
                "--tandem.db.name=" + System.getProperty("tandem.test.db-name", "tandem_test"),
                "--tandem.db.replica.host=127.0.0.1",
                "--tandem.seed.mode=off",
                "--tandem.cache.mode=none",
                "--spring.main.banner-mode=off").close())
                .hasRootCauseMessage("tandem.db.replica is set but the primary has no binary log (start it with --log-bin)");
    }

    /**
     * What {@code read} returned when the replica served it (the replica's read counter rose).
     * Whether a read goes to the replica is decided when it starts: the primary's position then must
     * be applied by the replica within tandem.db.replica.max-wait (100 ms), or the primary answers.
     * The instances write to the primary by themselves (an invalidation just made, each follower's
     * note every 5 s), and a loaded replica may apply that later than 100 ms; so each try first waits
     * until the replica has caught up, and a read the primary answered has what it cached evicted
     * ({@code evict}) before the next try. Bounded: a replica never used again still fails.
     */
    private static GroupView servedByReplica(Node node, Supplier<GroupView> read, Runnable evict) {
        return Await.value("a read served by the replica", Duration.ofSeconds(30), () -> {
            pair.awaitCaughtUp();
            long replicaReads = node.routing.reads().replica();
            GroupView view = read.get();
            if (node.routing.reads().replica() > replicaReads) {
                return view;
            }
            evict.run();
            return null;
        });
    }

    /**
     * A new group and {@code node}'s read of it, whose cache entry {@code evict} removes so that the
     * next read misses and asks the database; made once the node has read it from the replica.
     */
    private record ReaderMiss(Node node, GroupView group, Runnable evict, Supplier<GroupView> read) {
        static ReaderMiss ofNewGroup(Node node, String subject) {
            GroupView group = newGroup(subject);
            ReaderMiss miss = new ReaderMiss(node, group,
                    () -> node.cache.invalidateAfterCommit(GroupCaches.group(group.id())),
                    () -> node.groups.get(group.id()));
            miss.servedByReplica();
            return miss;
        }

        /** A read that misses the cache. */
        GroupView get() {
            evict.run();
            return read.get();
        }

        GroupView servedByReplica() {
            return ReadReplicaTest.servedByReplica(node, read, evict);
        }
    }

    /** {@code read} under a request deadline of {@code timeout}, as a client's would be. */
    private static <T> T within(Node node, Duration timeout, Supplier<T> read) {
        try (RequestDeadline deadline = node.deadlines.open(timeout);
             RequestDeadline.Binding ignored = deadline.bind()) {
            return read.get();
        }
    }

    /** The replica breaker's gauge (0 closed, 1 half-open, 2 open); NaN without one. */
    private static double breakerState(Node node) {
        Gauge gauge = node.meters.find("tandem.db.replica.breaker.state").gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    /** Reads the primary served without trying the replica, its breaker being open; NaN without the counter. */
    private static double readsSkippingTheReplica(Node node) {
        FunctionCounter counter = node.meters.find("tandem.db.reads").tag("reason", "replica-breaker-open").functionCounter();
        return counter == null ? Double.NaN : counter.count();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> replicaHealth(Node node) {
        return (Map<String, Object>) node.health.health(true).getDetails().get("replica");
    }

    private static long primaryReadsWhileBehind() {
        return writer.routing.reads().primaryReplicaBehind() + reader.routing.reads().primaryReplicaBehind();
    }

    private static GroupSummary pageRow(Node node, GroupView group) {
        return node.groups.list(group.subject(), 1000, "").groups().stream()
                .filter(row -> row.id() == group.id()).findFirst()
                .orElseThrow(() -> new AssertionError("group " + group.id() + " is not listed"));
    }

    private static GroupView newGroup(String subject) {
        UserView owner = writer.users.create(new NewUser("Owner", "owner-" + UUID.randomUUID() + "@example.test"));
        return writer.groups.create(new NewGroup("Group " + UUID.randomUUID().toString().substring(0, 8), subject,
                "", 10, owner.id()));
    }
}
