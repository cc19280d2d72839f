package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database recreated under a Redis that kept its keys: its log numbers rows from 1 again and a
 * new instance has seen no other numbers, so nothing in the log tells it that L2 holds the former
 * database's entries. Redis records which database L2 was read from (its identity, drawn by
 * migration V4), and an instance that finds another one recorded empties L2 before reading it: at
 * start, and when a running instance sees the log restart. Each test runs on databases and a key
 * prefix of its own, so the other tests' instances neither see nor feed them.
 *
 * <p>Both failed before the record: the instance served the former group 1 from L2.
 */
class RecreatedDatabaseTest {

    private static final String KEY_PREFIX = "tandem:cache:" + Instance.dbName() + "-recreated:";

    private final List<Instance> started = new ArrayList<>();
    private final List<String> databases = new ArrayList<>();

    @Test
    void anInstanceStartedOnARecreatedDatabaseDoesNotServeTheFormerOnesL2() {
        Instance former = onDatabase("former", CacheMode.HYBRID);
        former.seed.reset(1);
        GroupView formerGroup = former.groups.get(1);
        assertThat(former.cache.l2().read(GroupCaches.GROUP, 1L).value).as("L2 holds the former group 1").isEqualTo(formerGroup);
        former.close();

        // the database recreated: migrated afresh (another identity) and loaded from a dump of the
        // former, in which group 1 has been renamed since; its log starts empty
        Instance reference = onDatabase("recreated", CacheMode.NONE);
        copyRows(reference, database("former"));
        rename(reference, 1);
        GroupView truth = reference.groups.get(1);
        assertThat(truth).isNotEqualTo(formerGroup);

        Instance recreated = onDatabase("recreated", CacheMode.HYBRID);
        assertThat(recreated.groups.get(1)).as("group 1 read on the recreated database").isEqualTo(truth);
        assertThat(recreated.cache.l2().databaseRecorded()).as("the database Redis records")
                .isEqualTo(identity(reference));
    }

    @Test
    void aRunningInstanceWhoseDatabaseIsReplacedDoesNotServeTheFormerOnesL2() {
        Instance instance = onDatabase("replaced", CacheMode.HYBRID);
        Instance reference = onDatabase("replaced", CacheMode.NONE);
        instance.seed.reset(1);   // a flush row: the follower has seen the log's numbers
        GroupView formerGroup = instance.groups.get(1);
        assertThat(instance.cache.l2().read(GroupCaches.GROUP, 1L).value).isEqualTo(formerGroup);
        double restartsBefore = restarts(instance);

        // As a move to a new server, with the data loaded and group 1 renamed since, looks to the
        // cache: another identity and a log that starts again, in one step (a follower's pass
        // between them would see the restart and still the former identity).
        new TransactionTemplate(reference.context.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
            reference.jdbc.sql("DELETE FROM cache_invalidations").update();
            reference.jdbc.sql("UPDATE cache_database SET identity = UUID()").update();
            rename(reference, 1);
        });
        GroupView truth = reference.groups.get(1);
        assertThat(truth).isNotEqualTo(formerGroup);

        Await.until("the instance to see the log restart", Duration.ofSeconds(10), () -> restarts(instance) > restartsBefore);
        instance.awaitHealthy();
        assertThat(instance.groups.get(1)).as("group 1 read after the database was replaced").isEqualTo(truth);
        assertThat(instance.cache.l2().databaseRecorded()).isEqualTo(identity(reference));
    }

    @AfterEach
    void dropWhatTheTestMade() {
        // the database record has no time to live
        started.stream().filter(i -> i.context.isActive() && i.cache.redis() != null).findFirst()
                .ifPresent(i -> i.cache.redis().deleteByPrefix(KEY_PREFIX));
        started.forEach(Instance::close);
        for (String database : databases) {
            Instance.reference().jdbc.sql("DROP DATABASE IF EXISTS " + database).update();
        }
    }

    /** An instance of {@code mode} on the test's database {@code name}, created afresh the first time it is asked for. */
    private Instance onDatabase(String name, CacheMode mode) {
        String database = database(name);
        if (!databases.contains(database)) {
            Instance.reference().jdbc.sql("DROP DATABASE IF EXISTS " + database).update();
            databases.add(database);
        }
        Instance instance = Instance.named(name + "-" + mode.name().toLowerCase() + "-" + System.nanoTime(), mode,
                List.of("--tandem.db.name=" + database, "--tandem.cache.redis.key-prefix=" + KEY_PREFIX));
        started.add(instance);
        return instance;
    }

    private static String database(String name) {
        return Instance.dbName() + "_" + name;
    }

    private static void copyRows(Instance into, String from) {
        // parents first: the foreign keys are checked
        for (String table : List.of("users", "study_groups", "group_members", "ratings", "study_sessions")) {
            into.jdbc.sql("INSERT INTO " + table + " SELECT * FROM " + from + "." + table).update();
        }
    }

    private static void rename(Instance through, long groupId) {
        through.jdbc.sql("UPDATE study_groups SET name = CONCAT(name, ' renamed') WHERE id = ?").param(groupId).update();
    }

    private static String identity(Instance on) {
        return on.jdbc.sql("SELECT identity FROM cache_database").query(String.class).single();
    }

    private static double restarts(Instance instance) {
        return instance.cache.metrics().flushCounts().getOrDefault("log-restarted", 0.0);
    }
}
