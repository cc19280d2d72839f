package dev.tandem.system;

import dev.tandem.proto.v1.Group;
import dev.tandem.system.WireScenarios.Fails;
import dev.tandem.system.WireScenarios.Given;
import dev.tandem.system.WireScenarios.Scenario;
import dev.tandem.system.WireScenarios.Succeeds;
import dev.tandem.testsupport.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

/**
 * Runs every row of {@link WireScenarios} on gRPC, REST JSON and REST protobuf, one test per row and
 * wire, against the service processes {@link WireParityTest} uses too; and every row of
 * {@link WatchScenarios} on gRPC and REST (whose stream is text/event-stream in either
 * representation) against the pair that follows the invalidation log.
 */
@ExtendWith(BothServices.Extension.class)
class WireScenariosTest {

    /** Every column of the domain tables, one string per row: what "writes nothing" compares. */
    private static final Map<String, String> TABLES = Map.of(
            "users", "SELECT CONCAT_WS('|', id, name, email, created_at) FROM users ORDER BY id",
            "study_groups", "SELECT CONCAT_WS('|', id, name, subject, description, capacity, owner_id, version, created_at)"
                    + " FROM study_groups ORDER BY id",
            "group_members", "SELECT CONCAT_WS('|', group_id, user_id, joined_at) FROM group_members ORDER BY group_id, user_id",
            "study_sessions", "SELECT CONCAT_WS('|', id, group_id, topic, starts_at, duration_minutes, location)"
                    + " FROM study_sessions ORDER BY id",
            "ratings", "SELECT CONCAT_WS('|', group_id, user_id, stars, comment, created_at) FROM ratings"
                    + " ORDER BY group_id, user_id");

    static BothServices services;
    static BothServices followingTheLog;

    @BeforeAll
    static void connect(BothServices both, @BothServices.FollowingTheLog BothServices watchable) {
        services = both;
        followingTheLog = watchable;
    }

    @TestFactory
    Stream<DynamicNode> everyScenarioOnEveryWire() {
        return tests(WireScenarios.all(), services, services.wires());
    }

    @TestFactory
    Stream<DynamicNode> everyWatchScenarioOnBothWires() {
        return tests(WatchScenarios.rows(), followingTheLog, List.of(followingTheLog.grpc, followingTheLog.rest));
    }

    private static Stream<DynamicNode> tests(List<Scenario> rows, BothServices pair, List<Wire> wires) {
        return rows.stream().map(row -> dynamicContainer(row.name(), wires.stream()
                .filter(row::runsOn)
                .map(wire -> dynamicTest(row.nameOn(wire), () -> {
                    try {
                        run(row, wire, pair);
                    } catch (AssertionError | RuntimeException e) {
                        // Surefire's reports name dynamic tests by index: the message names the row and the wire.
                        throw new AssertionError(row.nameOn(wire) + ": " + e.getMessage(), e);
                    }
                }))));
    }

    static void run(Scenario row, Wire wire, BothServices pair) {
        Given given = new Given(pair.grpc, pair.database, pair.otherThan(wire));
        row.given().accept(given);
        Map<String, List<String>> tablesBefore = row.expected() instanceof Fails ? tables(pair.database) : null;
        Group groupBefore = row.expected() instanceof Fails && given.group != null ? readGroup(wire, given) : null;

        Object answer = null;
        Wire.Failure failure = null;
        try {
            answer = row.call().on(wire, given);
        } catch (Wire.Failure failed) {
            failure = failed;
        }

        switch (row.expected()) {
            case Succeeds succeeds -> {
                assertThat(failure).as("failure").isNull();
                succeeds.check().check(answer, wire, given);
            }
            case Fails fails -> {
                assertThat(failure).as("the call answered %s instead of failing", answer).isNotNull();
                assertThat(failure.code).as("status of %s", failure).isEqualTo(fails.code());
                assertThat(new TreeSet<>(failure.fields)).as("fields named by %s", failure)
                        .isEqualTo(new TreeSet<>(fails.fields()));
                assertThat(failure.resourceType).as("resource type of %s", failure).isEqualTo(fails.resourceType());
                assertThat(failure.resourceName).as("resource name of %s", failure)
                        .isEqualTo(fails.resourceType() == null ? null : fails.resourceName().apply(given));
                // Writes nothing: every domain table as it was, and the row's group reads as before.
                assertThat(tables(pair.database)).as("the domain tables after the failed call").isEqualTo(tablesBefore);
                if (groupBefore != null) {
                    assertThat(readGroup(wire, given)).as("the group after the failed call").isEqualTo(groupBefore);
                }
            }
        }
    }

    private static Group readGroup(Wire wire, Given given) {
        try {
            return wire.getGroup(WireScenarios.get(given.id()));
        } catch (Wire.Failure gone) {
            return null;
        }
    }

    private static Map<String, List<String>> tables(TestDatabase database) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String table : new TreeSet<>(TABLES.keySet())) {
            rows.put(table, database.column(TABLES.get(table)));
        }
        return rows;
    }
}
