package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupChanges;
import dev.tandem.group.GroupFields;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cache where transactions nest or are suspended, on a hybrid instance and a second one:
 * <ul>
 * <li>an invalidation registered inside a REQUIRES_NEW transaction belongs to that transaction: it
 * is applied when the inner one commits, whatever the suspended outer one does later;</li>
 * <li>one registered where a transaction is suspended and none runs (NOT_SUPPORTED: the write
 * committed on its own) is applied at once;</li>
 * <li>a read inside a transaction neither reads nor fills the cache: a read-write one must see its
 * own uncommitted rows and must not publish them; a read-only one reads from a snapshot that may be
 * older than invalidations the cache has already applied, and a fill from it would store the old
 * state as new.</li>
 * </ul>
 */
class TransactionBoundariesTest {

    @Test
    void anInvalidationInsideARequiresNewTransactionIsAppliedWhenThatTransactionCommits() {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance other = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        h.resetData();
        long outerGroup = 1;
        long innerGroup = 2;
        cacheEverywhere(innerGroup, h, other, reference);
        long invalidations = h.cache.l1().invalidationCount(GroupCaches.GROUP, innerGroup);

        TransactionTemplate outer = transactions(h, TransactionDefinition.PROPAGATION_REQUIRED, false);
        TransactionTemplate inner = transactions(h, TransactionDefinition.PROPAGATION_REQUIRES_NEW, false);
        outer.executeWithoutResult(tx -> {
            rename(h, reference, outerGroup, "Renamed by the outer transaction");
            inner.executeWithoutResult(innerTx -> rename(h, reference, innerGroup, "Renamed by the inner transaction"));
            assertThat(h.cache.l1().invalidationCount(GroupCaches.GROUP, innerGroup))
                    .as("the inner transaction's invalidation, applied when it committed").isGreaterThan(invalidations);
            tx.setRollbackOnly();
        });

        assertThat(reference.groups.get(innerGroup).name()).isEqualTo("Renamed by the inner transaction");
        assertThat(reference.groups.get(outerGroup).name()).isNotEqualTo("Renamed by the outer transaction");
        assertEveryReadIsFresh(List.of(outerGroup, innerGroup), reference, h, other);
    }

    @Test
    void anInvalidationWhereNoTransactionRunsIsAppliedAtOnceEvenInsideASuspendingScope() {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance other = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        h.resetData();
        long id = 3;
        cacheEverywhere(id, h, other, reference);

        TransactionTemplate outer = transactions(h, TransactionDefinition.PROPAGATION_REQUIRED, false);
        TransactionTemplate notSupported = transactions(h, TransactionDefinition.PROPAGATION_NOT_SUPPORTED, false);
        assertThatThrownBy(() -> outer.executeWithoutResult(tx -> notSupported.executeWithoutResult(none -> {
            // Without a transaction the UPDATE commits by itself (autocommit) ...
            h.jdbc.sql("UPDATE study_groups SET name = 'Renamed without a transaction', version = version + 1 WHERE id = ?")
                    .param(id).update();
            h.cache.invalidateAfterCommit(GroupCaches.group(id));
            // ... so the scope failing afterwards, and the outer transaction rolling back, undo nothing.
            throw new IllegalStateException("the scope fails after the write");
        }))).hasMessage("the scope fails after the write");

        assertThat(reference.groups.get(id).name()).isEqualTo("Renamed without a transaction");
        assertEveryReadIsFresh(List.of(id), reference, h, other);
    }

    /**
     * An invalidation inside a read-only transaction is refused at once: its log row could not be
     * written there (MySQL refuses writes in a read-only transaction), so accepting it would lose
     * it. Nothing is logged and nothing is invalidated.
     */
    @Test
    void anInvalidationInsideAReadOnlyTransactionIsRefused() {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        h.resetData();
        long logged = h.jdbc.sql("SELECT COUNT(*) FROM cache_invalidations").query(Long.class).single();
        long invalidations = h.cache.l1().invalidationCount(GroupCaches.GROUP, 1L);

        assertThatThrownBy(() -> transactions(h, TransactionDefinition.PROPAGATION_REQUIRED, true)
                .executeWithoutResult(tx -> h.cache.invalidateAfterCommit(GroupCaches.group(1))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("read-only transaction");

        assertThat(h.jdbc.sql("SELECT COUNT(*) FROM cache_invalidations").query(Long.class).single()).isEqualTo(logged);
        assertThat(h.cache.l1().invalidationCount(GroupCaches.GROUP, 1L)).isEqualTo(invalidations);
    }

    @Test
    void aReadInsideAReadOnlyTransactionServesItsSnapshotAndLeavesTheCacheAlone() {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance other = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        h.resetData();
        long id = 1;
        GroupView before = reference.groups.get(id);
        long invalidations = h.cache.l1().invalidationCount(GroupCaches.GROUP, id);

        transactions(h, TransactionDefinition.PROPAGATION_REQUIRED, true).executeWithoutResult(tx -> {
            // The transaction's snapshot is taken at its first read ...
            h.jdbc.sql("SELECT COUNT(*) FROM study_groups").query(Long.class).single();
            // ... then another instance changes the group and invalidates it, here too.
            rename(other, reference, id, "Renamed after the snapshot");
            assertThat(Await.within(h.cache.stalenessBound(),
                    () -> h.cache.l1().invalidationCount(GroupCaches.GROUP, id) > invalidations))
                    .as("the invalidation reached this instance").isTrue();

            assertThat(h.groups.get(id)).as("the read-only transaction reads its snapshot").isEqualTo(before);
        });

        assertThat(reference.groups.get(id).name()).isEqualTo("Renamed after the snapshot");
        // The snapshot's view of the group is older than the invalidation: no level may keep it.
        assertThat(h.cache.l1().getIfPresent(GroupCaches.GROUP, id)).as("L1").isNull();
        assertThat(h.cache.l2().read(GroupCaches.GROUP, id).value).as("L2").isNull();
        assertEveryReadIsFresh(List.of(id), reference, h, other);
    }

    @Test
    void aReadInsideAReadWriteTransactionSeesItsOwnWritesAndCachesNothing() {
        Instance h = Instance.named("hybrid-a", CacheMode.HYBRID);
        Instance other = Instance.named("hybrid-b", CacheMode.HYBRID);
        Instance reference = Instance.reference();
        h.resetData();
        long id = 1;
        GroupView committed = reference.groups.get(id);

        transactions(h, TransactionDefinition.PROPAGATION_REQUIRED, false).executeWithoutResult(tx -> {
            rename(h, reference, id, "Never committed");
            assertThat(h.groups.get(id).name()).as("the transaction's own write").isEqualTo("Never committed");
            // A read-only transaction of its own, meanwhile, sees what is committed; neither is cached.
            GroupView fromANewTransaction = transactions(h, TransactionDefinition.PROPAGATION_REQUIRES_NEW, true)
                    .execute(innerTx -> h.groups.get(id));
            assertThat(fromANewTransaction).isEqualTo(committed);
            assertThat(h.cache.l1().getIfPresent(GroupCaches.GROUP, id)).as("L1 was not filled").isNull();
            assertThat(h.cache.l2().read(GroupCaches.GROUP, id).hit()).as("L2 was not filled").isFalse();
            tx.setRollbackOnly();
        });

        assertEveryReadIsFresh(List.of(id), reference, h, other);
        assertThat(h.groups.get(id)).isEqualTo(committed);
    }

    private static TransactionTemplate transactions(Instance i, int propagation, boolean readOnly) {
        TransactionTemplate template = new TransactionTemplate(i.context.getBean(PlatformTransactionManager.class));
        template.setPropagationBehavior(propagation);
        template.setReadOnly(readOnly);
        return template;
    }

    private static void rename(Instance i, Instance reference, long id, String name) {
        i.groups.update(new GroupChanges(id, new GroupFields(name, null, null, 0), Set.of("name"),
                reference.version(id)));
    }

    /** Reads the group on each instance until it is in its L1 (and so in L2). */
    private static void cacheEverywhere(long id, Instance... instances) {
        for (Instance i : instances) {
            i.groups.get(id);
            if (i.cache.l1() != null) {
                assertThat(i.cache.l1().getIfPresent(GroupCaches.GROUP, id)).as("%s caches group %d", i, id).isNotNull();
            }
        }
    }

    /** Within the staleness bound, each instance's reads of {@code groups} (and their subjects' lists) equal the database. */
    private static void assertEveryReadIsFresh(List<Long> groups, Instance reference, Instance... instances) {
        List<String> subjects = List.of("", reference.groups.get(groups.getFirst()).subject());
        var truth = Reads.all(reference, groups, List.of(), subjects);
        for (Instance i : instances) {
            Await.within(i.cache.stalenessBound(), () -> Reads.all(i, groups, List.of(), subjects).equals(truth));
            assertThat(Reads.differing(Reads.all(i, groups, List.of(), subjects), truth)).as("%s: stale reads", i).isEmpty();
        }
    }
}
