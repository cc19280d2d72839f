package dev.tandem.cache;

import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupView;
import dev.tandem.testsupport.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database recreated under a Redis that kept its keys: its log numbers rows from 1 again and a
 * new instance has seen no other numbers, so nothing in the log tells it that L2 holds the former
 * database's entries. Redis records which database L2 was read from (its identity, drawn by
 * migration V4), and an instance that finds another one recorded empties L2 before reading it: at
 * start, and when a running instance sees the database replaced. Each test runs on databases and a key
 * prefix of its own, so the other tests' instances neither see nor feed them.
 *
 * <p>The first two failed before the record: the instance served the former group 1 from L2 (the
 * replaced database whose log did not go back, and the lost record, until the follower read the
 * identity with every pass and checked the record while L2 is read).
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
        // the same database: nothing to empty
        Instance again = onDatabase("former", CacheMode.HYBRID);
        assertThat(again.cache.l2().read(GroupCaches.GROUP, 1L).value).as("L2 after a restart on the same database")
                .isEqualTo(formerGroup);
        again.close();

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

    /**
     * {@code logRestarts}: the new database's log is shorter than what the instance had read (the
     * follower sees the numbers go back), or not (it has grown past them while the follower could not
     * read, or the instance had read nothing yet), when only the identity tells.
     */
    @ParameterizedTest(name = "the log goes back: {0}")
    @ValueSource(booleans = {true, false})
    void aRunningInstanceWhoseDatabaseIsReplacedDoesNotServeTheFormerOnesL2(boolean logRestarts) {
        Instance instance = onDatabase("replaced", CacheMode.HYBRID);
        Instance reference = onDatabase("replaced", CacheMode.NONE);
        instance.seed.reset(1);   // a flush row: the follower has seen the log's numbers
        long newest = reference.jdbc.sql("SELECT MAX(seq) FROM cache_invalidations").query(Long.class).single();
        Await.until("the follower to read the newest row", Duration.ofSeconds(10),
                () -> instance.cache.follower().highestSeen() >= newest);
        GroupView formerGroup = instance.groups.get(1);
        assertThat(instance.cache.l2().read(GroupCaches.GROUP, 1L).value).isEqualTo(formerGroup);
        double replacedBefore = replacements(instance);

        // As a move to a new server, with the data loaded and group 1 renamed since, looks to the
        // cache: another identity, and a log that starts again or not, in one step (a follower's pass
        // between them would see a half-moved database).
        new TransactionTemplate(reference.context.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
            if (logRestarts) {
                reference.jdbc.sql("DELETE FROM cache_invalidations").update();
            }
            reference.jdbc.sql("UPDATE cache_database SET identity = UUID()").update();
            rename(reference, 1);
        });
        GroupView truth = reference.groups.get(1);
        assertThat(truth).isNotEqualTo(formerGroup);

        Await.until("the instance to see that the database was replaced", Duration.ofSeconds(10),
                () -> replacements(instance) > replacedBefore);
        instance.awaitHealthy();
        assertThat(instance.groups.get(1)).as("group 1 read after the database was replaced").isEqualTo(truth);
        assertThat(instance.cache.l2().databaseRecorded()).isEqualTo(identity(reference));
    }

    /**
     * The record has no time to live but can still go: Redis restarted empty, a maxmemory policy
     * evicted it. Written again while L2 is read, so that a later recreation of the database is
     * still told. Failed before: the record was written only when L2 was first read.
     */
    @Test
    void aRecordLostFromRedisIsWrittenAgain() {
        Instance instance = onDatabase("record", CacheMode.HYBRID);
        String identity = identity(instance);
        assertThat(instance.cache.l2().databaseRecorded()).isEqualTo(identity);
        instance.cache.redis().delete(instance.cache.l2().databaseKey());
        Await.until("the record to be written again", Duration.ofSeconds(15),
                () -> identity.equals(instance.cache.l2().databaseRecorded()));
    }

    @BeforeEach
    @AfterEach
    void dropWhatTheTestMade() {
        started.forEach(Instance::close);
        started.clear();
        for (String database : databases) {
            Instance.reference().jdbc.sql("DROP DATABASE IF EXISTS " + database).update();
        }
        databases.clear();
        // The test's keys on the shared Redis, through any instance there: the database record has no
        // time to live, and one a failed run left would be found by the next.
        Instance.named("hybrid-a", CacheMode.HYBRID).cache.redis().deleteByPrefix(KEY_PREFIX);
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
            // The stored columns only: a generated one (users.email_key) refuses a value.
            String columns = into.jdbc.sql("SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS "
                    + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND EXTRA NOT LIKE '%GENERATED%'")
                    .param(from).param(table).query(String.class).single();
            into.jdbc.sql("INSERT INTO " + table + " (" + columns + ") SELECT " + columns + " FROM " + from + "." + table).update();
        }
    }

    private static void rename(Instance through, long groupId) {
        through.jdbc.sql("UPDATE study_groups SET name = CONCAT(name, ' renamed') WHERE id = ?").param(groupId).update();
    }

    private static String identity(Instance on) {
        return on.jdbc.sql("SELECT identity FROM cache_database").query(String.class).single();
    }

    /** The L1 flushes the follower made because the database was replaced or its log restarted. */
    private static double replacements(Instance instance) {
        Map<String, Double> flushes = instance.cache.metrics().flushCounts();
        return flushes.getOrDefault("database-replaced", 0.0) + flushes.getOrDefault("log-restarted", 0.0);
    }
}
