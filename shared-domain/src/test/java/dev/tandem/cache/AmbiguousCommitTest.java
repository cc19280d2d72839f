package dev.tandem.cache;

import dev.tandem.error.DataAccessFailures;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.CommitCuttingProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A write whose COMMIT MariaDB applied, but whose answer was lost with the connection: the client
 * is told the outcome is unknown (commitOutcome=unknown on both wires) and to read before retrying.
 * That read must show the write — on the writer and on another instance, from L1 and from L2 —
 * so the cache has to invalidate as for a commit, not drop the invalidation as for a rollback.
 */
class AmbiguousCommitTest {

    private static final List<Long> GROUPS = List.of(1L, 2L);
    private static final List<Long> USERS = List.of(1L);

    private static CommitCuttingProxy proxy;
    private static Instance writer;

    @BeforeAll
    static void startAWriterBehindTheProxy() throws IOException {
        int databasePort = Instance.reference().context.getEnvironment().getRequiredProperty("tandem.db.port", Integer.class);
        proxy = CommitCuttingProxy.start(databasePort);
        writer = Instance.named("hybrid-behind-proxy", CacheMode.HYBRID, List.of("--tandem.db.port=" + proxy.port()));
    }

    @AfterAll
    static void stopTheWriterAndTheProxy() throws IOException {
        if (writer != null) {
            writer.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aCommitWhoseAnswerWasLostIsInvalidatedOnEveryLevelAndInstance() {
        Instance other = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        other.resetData();
        long id = 1;
        List<String> subjects = List.of("", reference.groups.get(id).subject());

        Map<String, Object> before = Reads.all(reference, GROUPS, USERS, subjects);
        for (Instance i : List.of(writer, other)) {
            assertThat(Reads.all(i, GROUPS, USERS, subjects)).as("%s before the write", i).isEqualTo(before);
            assertThat(i.cache.l1().getIfPresent(GroupCaches.GROUP, id)).as("%s holds the group in L1", i).isNotNull();
        }
        assertThat(writer.cache.l2().read(GroupCaches.GROUP, id).hit()).as("L2 holds the group").isTrue();

        long cutBefore = proxy.commitsCut(); // the class's proxy: the other tests cut too
        double relaysBefore = writer.cache.metrics().invalidationsSent.count();
        double failedBefore = writer.cache.metrics().invalidationsFailed.count();
        proxy.cutNextWriteCommit();
        Throwable failure = catchThrowable(() -> writer.groups.update(new GroupChanges(id,
                new GroupFields("Renamed while the line went dead", null, null, 0), Set.of("name"),
                reference.version(id))));
        // The writer took the commit for made and invalidated before the write returned (its count of
        // rows sent rose, and its relay did not fail): its row carries no marker, so every follower
        // relays and applies it too (this one's within a poll interval), and the levels below alone
        // could not tell the writer's invalidation from theirs. Without these two, the test passed
        // two runs in three with the writer dropping the invalidation of an ambiguous commit.
        assertThat(writer.cache.metrics().invalidationsSent.count() - relaysBefore).as("the writer invalidated").isEqualTo(1);
        assertThat(writer.cache.metrics().invalidationsFailed.count() - failedBefore).as("its relay failed").isZero();

        assertThat(proxy.commitsCut() - cutBefore).as("the proxy dropped the COMMIT's answer").isEqualTo(1);
        DomainException answer = new DataAccessFailures().classify(failure)
                .orElseThrow(() -> new AssertionError("not a data-access failure", failure));
        assertThat(answer.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(answer.metadata()).containsEntry(DataAccessFailures.COMMIT_OUTCOME, "unknown");
        assertThat(reference.groups.get(id).name()).as("MariaDB applied the commit").isEqualTo("Renamed while the line went dead");

        Map<String, Object> after = Reads.all(reference, GROUPS, USERS, subjects);
        // The writer invalidates L2 and its own L1 before the write returns (here: fails).
        assertThat(writer.cache.l2().read(GroupCaches.GROUP, id).value).as("L2 after the write")
                .isIn(null, reference.groups.get(id));
        assertThat(Reads.all(writer, GROUPS, USERS, subjects)).as("the writer's reads").isEqualTo(after);
        // Any other instance within the staleness bound.
        Await.within(other.cache.stalenessBound(), () -> Reads.all(other, GROUPS, USERS, subjects).equals(after));
        assertThat(Reads.all(other, GROUPS, USERS, subjects)).as("the other instance's reads").isEqualTo(after);
    }

    /**
     * A commit that becomes visible only after its writer gave it up (the server still committing as
     * the connection died): the writer's reads in between find the old row in MySQL and refill L1 and
     * L2 over the tombstones it relayed at once. Once the row is visible, the followers relay and
     * apply it again, the writer's own too. Before, the writer's marker told every follower the row
     * was relayed and its own follower skipped the row as applied, so the old group stayed in L2 for
     * its time to live (5 min) and in the writer's L1 for its (60 s).
     */
    @Test
    void aCommitThatBecomesVisibleAfterItsWriterGaveItUpIsInvalidatedOnceItIs() throws IOException {
        Instance reference = Instance.reference();
        writer.resetData();
        long id = 2;
        GroupView old = writer.groups.get(id);
        String name = "Committed after the line went dead";

        proxy.holdNextWriteCommit();
        Throwable failure = catchThrowable(() -> writer.groups.update(new GroupChanges(id,
                new GroupFields(name, null, null, 0), Set.of("name"), reference.version(id))));
        assertThat(new DataAccessFailures().classify(failure)).as("the outcome is unknown: %s", failure)
                .hasValueSatisfying(answer -> assertThat(answer.metadata()).containsEntry(DataAccessFailures.COMMIT_OUTCOME, "unknown"));
        // meanwhile MySQL still has the old row, and a read fills both levels with it
        assertThat(writer.groups.get(id)).isEqualTo(old);
        assertThat(writer.cache.l2().read(GroupCaches.GROUP, id).value).as("L2 refilled from the old row").isEqualTo(old);

        proxy.releaseHeldCommit();
        Await.until("MariaDB to apply the held commit", Duration.ofSeconds(10),
                () -> reference.groups.get(id).name().equals(name));
        GroupView committed = reference.groups.get(id);
        Await.until("the writer to serve the committed group", Duration.ofSeconds(10),
                () -> writer.groups.get(id).equals(committed));
        assertThat(writer.cache.l2().read(GroupCaches.GROUP, id).value).as("L2 once the row is followed")
                .isIn(null, committed);
    }

    /** The counterpart: a transaction that rolled back cleanly leaves every cached entry in place. */
    @Test
    void aCleanRollbackInvalidatesNothing() {
        Instance reference = Instance.reference();
        writer.resetData();
        long id = 1;
        GroupView cached = writer.groups.get(id);
        long invalidations = writer.cache.l1().invalidationCount(GroupCaches.GROUP, id);

        new TransactionTemplate(writer.context.getBean(PlatformTransactionManager.class)).executeWithoutResult(tx -> {
            writer.groups.update(new GroupChanges(id, new GroupFields("Never committed", null, null, 0), Set.of("name"),
                    reference.version(id)));
            tx.setRollbackOnly();
        });

        assertThat(reference.groups.get(id)).isEqualTo(cached);
        assertThat(writer.cache.l1().invalidationCount(GroupCaches.GROUP, id)).as("L1 invalidations of the group")
                .isEqualTo(invalidations);
        assertThat(writer.cache.l1().getIfPresent(GroupCaches.GROUP, id)).contains(cached);
    }
}
