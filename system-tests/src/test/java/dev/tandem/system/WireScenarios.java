package dev.tandem.system;

import com.google.protobuf.FieldMask;
import com.google.protobuf.Timestamp;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloResponse;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.RateGroupRequest;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.StudySession;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.testsupport.TestDatabase;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API's wire behaviour as one table: every operation of {@link Wire}, its success paths with
 * their read-back checks, and every error class with the status name, the fields named and the
 * resource blamed. {@link WireScenariosTest} runs each row on gRPC, REST JSON and REST protobuf.
 *
 * <p>A row names what it needs (a fresh group of some capacity owned by user 1, members, ratings,
 * a fresh user...), which the runner makes through the gRPC wire before the call, so that rows do
 * not depend on each other or on their order. Every failing row must also write nothing: the
 * runner compares the domain tables before and after the call, and the row's group as the wire
 * under test reads it. Domain rules under concurrency are tested once, in shared-domain
 * (GroupServiceTest); what only one wire can show (status codes, headers, JSON parsing, BadRequest
 * structure) stays in the wire modules.
 */
final class WireScenarios {

    private WireScenarios() {
    }

    /** Not a user or group id the seed or any row makes. */
    static final long UNKNOWN = 999_999;
    /** Before the seeded sessions (which start in 2030), with a fraction the domain drops. */
    static final Instant START = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS).plusMillis(123);

    // ---- the row ---------------------------------------------------------------------------------

    /**
     * One scenario: its name, what it needs, the call, and what must come of it on every wire.
     * (Two disagreements this table found are fixed: REST read an empty protobuf body as missing
     * instead of as the empty message, and answered an out-of-range Timestamp with a 500.)
     */
    record Scenario(String name, Consumer<Given> given, Call call, Outcome expected, boolean jsonExpressible) {

        /** For requests protobuf's JSON mapping cannot print (an invalid Timestamp): gRPC and REST protobuf only. */
        Scenario notInJson() {
            return new Scenario(name, given, call, expected, false);
        }

        boolean runsOn(Wire wire) {
            return jsonExpressible || !wire.name().equals("REST");
        }

        String nameOn(Wire wire) {
            return name + " [" + wire.name() + "]";
        }
    }

    @FunctionalInterface
    interface Call {
        Object on(Wire wire, Given given);
    }

    @FunctionalInterface
    interface Check<T> {
        void check(T answer, Wire wire, Given given);
    }

    sealed interface Outcome permits Succeeds, Fails {
    }

    record Succeeds(Check<Object> check) implements Outcome {
    }

    /** The failure: status name, exactly these fields, and the resource blamed (type null: none). */
    record Fails(String code, Set<String> fields, String resourceType, Function<Given, String> resourceName)
            implements Outcome {
    }

    /** What a row made before its call, through the setup wire: the ids its call and checks use. */
    static final class Given {
        private static final AtomicLong UNIQUE = new AtomicLong(System.currentTimeMillis());

        final Wire setup;
        final TestDatabase database;
        /** The other instance's wire than the one under test's: where a change a watcher must hear of is made. */
        final Wire other;
        /** The row's group, as the setup wire last answered it. */
        Group group;
        /** The ids of every group the row made, in order. */
        final List<Long> made = new ArrayList<>();
        StudySession session;
        String subject;

        Given(Wire setup, TestDatabase database, Wire other) {
            this.setup = setup;
            this.database = database;
            this.other = other;
        }

        long id() {
            return group.getId();
        }

        /** A fresh group of this capacity owned by user 1 (so users 2 and up are not members). */
        Given group(int capacity) {
            group = setup.createGroup(CreateGroupRequest.newBuilder().setName("Scenario group")
                    .setSubject(subject == null ? "history" : subject).setDescription("Made for one row")
                    .setCapacity(capacity).setOwnerId(1).build());
            made.add(group.getId());
            return this;
        }

        Given member(long user) {
            setup.joinGroup(join(id(), user));
            group = setup.getGroup(get(id()));
            return this;
        }

        Given left(long user) {
            setup.leaveGroup(leave(id(), user));
            group = setup.getGroup(get(id()));
            return this;
        }

        Given rating(long user, int stars) {
            setup.rateGroup(RateGroupRequest.newBuilder().setGroupId(id()).setUserId(user).setStars(stars).build());
            group = setup.getGroup(get(id()));
            return this;
        }

        Given session() {
            session = setup.scheduleSession(WireScenarios.session(id()).build());
            group = setup.getGroup(get(id()));
            return this;
        }

        Given renamed(String name) {
            group = setup.updateGroup(update(id(), group.getVersion(), Group.newBuilder().setName(name).build(), "name"));
            return this;
        }

        Given deleted() {
            setup.deleteGroup(DeleteGroupRequest.newBuilder().setId(id()).build());
            return this;
        }

        /** A subject no other row uses, for listings whose rows must be exactly the row's groups. */
        Given ownSubject() {
            subject = "scenario-" + Long.toString(UNIQUE.incrementAndGet(), 36);
            return this;
        }

        static String uniqueEmail() {
            return "scenario-" + UNIQUE.incrementAndGet() + "@example.test";
        }

        long count(String sql, Object... parameters) {
            return Long.parseLong(database.value("SELECT COUNT(*) FROM " + sql, parameters));
        }
    }

    // ---- building rows ---------------------------------------------------------------------------

    static final Consumer<Given> NOTHING = g -> { };

    @SuppressWarnings("unchecked")
    static <T> Scenario ok(String name, Consumer<Given> given, Function2<T> call, Check<T> check) {
        return new Scenario(name, given, call::on, new Succeeds((answer, wire, g) -> check.check((T) answer, wire, g)), true);
    }

    @FunctionalInterface
    interface Function2<T> {
        T on(Wire wire, Given given);
    }

    static Scenario fails(String name, Consumer<Given> given, Call call, String code, String resourceType,
                          Function<Given, String> resourceName) {
        return new Scenario(name, given, call, new Fails(code, Set.of(), resourceType, resourceName), true);
    }

    static Scenario notFound(String name, Consumer<Given> given, Call call, String resourceType,
                             Function<Given, String> resourceName) {
        return fails(name, given, call, "NOT_FOUND", resourceType, resourceName);
    }

    static Scenario invalid(String name, Consumer<Given> given, Call call, String... fields) {
        return new Scenario(name, given, call, new Fails("INVALID_ARGUMENT", Set.of(fields), null, g -> null), true);
    }

    static Function<Given, String> named(Object name) {
        return g -> String.valueOf(name);
    }

    // ---- requests --------------------------------------------------------------------------------

    static GetGroupRequest get(long id) {
        return GetGroupRequest.newBuilder().setId(id).build();
    }

    static JoinGroupRequest join(long group, long user) {
        return JoinGroupRequest.newBuilder().setGroupId(group).setUserId(user).build();
    }

    static LeaveGroupRequest leave(long group, long user) {
        return LeaveGroupRequest.newBuilder().setGroupId(group).setUserId(user).build();
    }

    static RateGroupRequest.Builder rate(long group, long user, int stars) {
        return RateGroupRequest.newBuilder().setGroupId(group).setUserId(user).setStars(stars);
    }

    static ScheduleSessionRequest.Builder session(long group) {
        return ScheduleSessionRequest.newBuilder().setGroupId(group).setTopic("Dynamic programming")
                .setStartTime(timestamp(START)).setDurationMinutes(90).setLocation("Library room 1");
    }

    static UpdateGroupRequest update(long id, long expectedVersion, Group values, String... paths) {
        return UpdateGroupRequest.newBuilder().setId(id).setGroup(values)
                .setUpdateMask(FieldMask.newBuilder().addAllPaths(List.of(paths)))
                .setExpectedVersion(expectedVersion).build();
    }

    static final CreateGroupRequest VALID_GROUP = CreateGroupRequest.newBuilder()
            .setName("Graph theory").setSubject("algorithms").setDescription("Cliques and colourings")
            .setCapacity(10).setOwnerId(7).build();

    static Timestamp timestamp(Instant instant) {
        return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
    }

    static ListGroupsRequest list(String subject, int pageSize, String token) {
        return ListGroupsRequest.newBuilder().setSubject(subject).setPageSize(pageSize).setPageToken(token).build();
    }

    static GetLeaderboardRequest leaderboard(String subject, int limit) {
        return GetLeaderboardRequest.newBuilder().setSubject(subject).setLimit(limit).build();
    }

    // ---- the table: its rows are in GroupScenarios, SubresourceScenarios, UserScenarios and WatchScenarios ----

    /** The rows for services without a cache (WatchScenarios.rows() needs the log: see its runner). */
    static List<Scenario> all() {
        return Stream.of(GroupScenarios.rows(), SubresourceScenarios.rows(), UserScenarios.rows(),
                WatchScenarios.withoutTheLog(),
                Stream.of(ok("Hello: says hello", NOTHING, (w, g) -> w.hello(HelloRequest.getDefaultInstance()),
                        (HelloResponse hello, Wire w, Given g) -> assertThat(hello.getMessage()).isEqualTo("hello"))))
                .flatMap(s -> s).toList();
    }

    static String abbreviate(Object request) {
        String text = request.toString().replace('\n', ' ').trim();
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }

    /** The failure of a call that must fail. */
    static Wire.Failure failure(Runnable call) {
        try {
            call.run();
        } catch (Wire.Failure failure) {
            return failure;
        }
        throw new AssertionError("the call should have failed");
    }
}
