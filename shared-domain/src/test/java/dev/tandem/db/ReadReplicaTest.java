package dev.tandem.db;

import dev.tandem.DomainTestApplication;
import dev.tandem.cache.TieredCache;
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

    private static ReplicationPair pair;
    private static final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private static Node writer;
    private static Node reader;

    /** One service instance. */
    record Node(GroupService groups, UserService users, TieredCache cache, ReplicaRoutingDataSource routing,
                DatabaseHealthIndicator health) {
        static Node start(String name, String cacheMode) {
            ConfigurableApplicationContext context = new SpringApplicationBuilder(DomainTestApplication.class)
                    .web(WebApplicationType.NONE)
                    .run("--tandem.db.port=" + pair.primary.port,
                            "--tandem.db.name=" + DB,
                            "--tandem.db.pool-size=4",
                            "--tandem.db.replica.host=127.0.0.1",
                            "--tandem.db.replica.port=" + pair.replica.port,
                            "--tandem.seed.mode=off",
                            "--tandem.cache.mode=" + cacheMode,
                            "--tandem.cache.instance-id=" + name + "-" + UUID.randomUUID(),
                            "--tandem.cache.redis.key-prefix=tandem:cache:" + DB + ":",
                            "--spring.main.banner-mode=off");
            contexts.add(context);
            return new Node(context.getBean(GroupService.class), context.getBean(UserService.class),
                    context.getBean(TieredCache.class), context.getBean(ReplicaRoutingDataSource.class),
                    context.getBean(DatabaseHealthIndicator.class));
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
