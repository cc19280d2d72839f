package dev.tandem.system;

import com.google.protobuf.Empty;
import com.google.protobuf.Timestamp;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.Rating;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.StudySession;
import dev.tandem.system.WireScenarios.Given;
import dev.tandem.system.WireScenarios.Scenario;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static dev.tandem.system.WireScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of {@link WireScenarios} about what hangs off a group: JoinGroup, LeaveGroup, RateGroup
 * and ScheduleSession.
 */
final class SubresourceScenarios {

    private SubresourceScenarios() {
    }

    static Stream<Scenario> rows() {
        return Stream.of(joinGroup(), leaveGroup(), rateGroup(), scheduleSession()).flatMap(s -> s);
    }

    static Stream<Scenario> joinGroup() {
        return Stream.of(
                ok("JoinGroup: adds a membership", g -> g.group(10),
                        (w, g) -> w.joinGroup(join(g.id(), 42)),
                        (Membership membership, Wire w, Given g) -> {
                            assertThat(membership.getGroupId()).isEqualTo(g.id());
                            assertThat(membership.getUserId()).isEqualTo(42);
                            assertThat(membership.hasJoinTime()).isTrue();
                            assertThat(w.getGroup(get(g.id())).getMemberCount()).isEqualTo(2);
                            assertThat(g.count("group_members WHERE group_id = ? AND user_id = 42", g.id())).isEqualTo(1);
                        }),
                fails("JoinGroup: a second join is ALREADY_EXISTS", g -> g.group(10).member(42),
                        (w, g) -> w.joinGroup(join(g.id(), 42)), "ALREADY_EXISTS", "membership", g -> g.id() + "/42"),
                fails("JoinGroup: the owner joining is ALREADY_EXISTS", g -> g.group(10),
                        (w, g) -> w.joinGroup(join(g.id(), 1)), "ALREADY_EXISTS", "membership", g -> g.id() + "/1"),
                fails("JoinGroup: a full group is FAILED_PRECONDITION", g -> g.group(2).member(42),
                        (w, g) -> w.joinGroup(join(g.id(), 43)), "FAILED_PRECONDITION", null, named(null)),
                notFound("JoinGroup: an unknown group is NOT_FOUND", NOTHING,
                        (w, g) -> w.joinGroup(join(UNKNOWN, 42)), "group", named(UNKNOWN)),
                notFound("JoinGroup: an unknown user is NOT_FOUND", g -> g.group(10),
                        (w, g) -> w.joinGroup(join(g.id(), UNKNOWN)), "user", named(UNKNOWN)));
    }

    static Stream<Scenario> leaveGroup() {
        return Stream.of(
                ok("LeaveGroup: removes the membership", g -> g.group(10).member(42),
                        (w, g) -> w.leaveGroup(leave(g.id(), 42)),
                        (Empty answer, Wire w, Given g) -> {
                            assertThat(answer).isEqualTo(Empty.getDefaultInstance());
                            assertThat(w.getGroup(get(g.id())).getMemberCount()).isEqualTo(1);
                            assertThat(g.count("group_members WHERE group_id = ? AND user_id = 42", g.id())).isZero();
                        }),
                notFound("LeaveGroup: a group one is not in is NOT_FOUND", g -> g.group(10),
                        (w, g) -> w.leaveGroup(leave(g.id(), 42)), "membership", g -> g.id() + "/42"),
                notFound("LeaveGroup: leaving twice is NOT_FOUND", g -> g.group(10).member(42).left(42),
                        (w, g) -> w.leaveGroup(leave(g.id(), 42)), "membership", g -> g.id() + "/42"),
                notFound("LeaveGroup: an unknown group is NOT_FOUND", NOTHING,
                        (w, g) -> w.leaveGroup(leave(UNKNOWN, 42)), "group", named(UNKNOWN)),
                fails("LeaveGroup: the owner leaving is FAILED_PRECONDITION", g -> g.group(10),
                        (w, g) -> w.leaveGroup(leave(g.id(), 1)), "FAILED_PRECONDITION", null, named(null)));
    }

    static Stream<Scenario> rateGroup() {
        List<Scenario> rows = new ArrayList<>();
        rows.add(ok("RateGroup: stores the rating, which counts in the group's average", g -> g.group(10).rating(43, 5),
                (w, g) -> w.rateGroup(rate(g.id(), 42, 4).setComment("Well run").build()),
                (Rating rating, Wire w, Given g) -> {
                    assertThat(rating.getGroupId()).isEqualTo(g.id());
                    assertThat(rating.getUserId()).isEqualTo(42);
                    assertThat(rating.getStars()).isEqualTo(4);
                    assertThat(rating.getComment()).isEqualTo("Well run");
                    assertThat(rating.hasCreateTime()).isTrue();
                    Group read = w.getGroup(get(g.id()));
                    assertThat(read.getRatingCount()).isEqualTo(2);
                    assertThat(read.getAverageRating()).isEqualTo(4.5);
                }));
        for (int stars : new int[] {1, 5}) {
            rows.add(ok("RateGroup: " + stars + " stars is within bounds and the comment optional", g -> g.group(10),
                    (w, g) -> w.rateGroup(rate(g.id(), 42, stars).build()),
                    (Rating rating, Wire w, Given g) -> {
                        assertThat(rating.getStars()).isEqualTo(stars);
                        assertThat(rating.getComment()).isEmpty();
                    }));
        }
        rows.add(fails("RateGroup: a second rating by the same user is ALREADY_EXISTS and keeps the first",
                g -> g.group(10).rating(42, 2),
                (w, g) -> w.rateGroup(rate(g.id(), 42, 5).build()), "ALREADY_EXISTS", "rating", g -> g.id() + "/42"));
        for (int stars : new int[] {0, 6, -1, 100}) {
            rows.add(invalid("RateGroup: " + stars + " stars", g -> g.group(10),
                    (w, g) -> w.rateGroup(rate(g.id(), 42, stars).build()), "stars"));
        }
        rows.add(invalid("RateGroup: a comment longer than 500", g -> g.group(10),
                (w, g) -> w.rateGroup(rate(g.id(), 42, 3).setComment("c".repeat(501)).build()), "comment"));
        rows.add(invalid("RateGroup: user id 0", g -> g.group(10),
                (w, g) -> w.rateGroup(rate(g.id(), 0, 3).build()), "user_id"));
        rows.add(notFound("RateGroup: an unknown group is NOT_FOUND", NOTHING,
                (w, g) -> w.rateGroup(rate(UNKNOWN, 42, 3).build()), "group", named(UNKNOWN)));
        rows.add(notFound("RateGroup: an unknown user is NOT_FOUND", g -> g.group(10),
                (w, g) -> w.rateGroup(rate(g.id(), UNKNOWN, 3).build()), "user", named(UNKNOWN)));
        return rows.stream();
    }

    static Stream<Scenario> scheduleSession() {
        List<Scenario> rows = new ArrayList<>();
        rows.add(ok("ScheduleSession: stores the session in whole seconds; it becomes the group's next", g -> g.group(10),
                (w, g) -> w.scheduleSession(session(g.id()).build()),
                (StudySession session, Wire w, Given g) -> {
                    assertThat(session.getId()).isPositive();
                    assertThat(session).isEqualTo(StudySession.newBuilder().setId(session.getId()).setGroupId(g.id())
                            .setTopic("Dynamic programming").setStartTime(timestamp(START.truncatedTo(ChronoUnit.SECONDS)))
                            .setDurationMinutes(90).setLocation("Library room 1").build());
                    assertThat(w.getGroup(get(g.id())).getNextSessionsList()).containsExactly(session);
                }));
        for (int minutes : new int[] {15, 480}) {
            rows.add(ok("ScheduleSession: " + minutes + " minutes is within bounds, the location optional", g -> g.group(10),
                    (w, g) -> w.scheduleSession(session(g.id()).setDurationMinutes(minutes).clearLocation().build()),
                    (StudySession session, Wire w, Given g) -> {
                        assertThat(session.getDurationMinutes()).isEqualTo(minutes);
                        assertThat(session.getLocation()).isEmpty();
                    }));
        }
        Stream.of(
                invalidSession("start_time", ScheduleSessionRequest.Builder::clearStartTime),
                invalidSession("start_time", r -> r.setStartTime(timestamp(Instant.now().minus(1, ChronoUnit.HOURS)))),
                invalidSession("start_time", r -> r.setStartTime(timestamp(Instant.parse("2020-01-01T00:00:00Z")))),
                invalidTimestamp(r -> r.setStartTime(Timestamp.newBuilder().setSeconds(START.getEpochSecond()).setNanos(-1))),
                invalidTimestamp(r -> r.setStartTime(Timestamp.newBuilder().setSeconds(Long.MAX_VALUE))),
                invalidSession("duration_minutes", r -> r.setDurationMinutes(14)),
                invalidSession("duration_minutes", r -> r.setDurationMinutes(481)),
                invalidSession("duration_minutes", r -> r.setDurationMinutes(0)),
                invalidSession("topic", r -> r.setTopic("")),
                invalidSession("topic", r -> r.setTopic("  ")),
                invalidSession("topic", r -> r.setTopic("\u200B\u00A0")),
                invalidSession("topic", r -> r.setTopic("t".repeat(201))),
                invalidSession("location", r -> r.setLocation("l".repeat(201)))).forEach(rows::add);
        rows.add(invalid("ScheduleSession: every invalid field is named at once", g -> g.group(10),
                (w, g) -> w.scheduleSession(ScheduleSessionRequest.newBuilder().setGroupId(g.id()).build()),
                "topic", "start_time", "duration_minutes"));
        rows.add(notFound("ScheduleSession: an unknown group is NOT_FOUND", NOTHING,
                (w, g) -> w.scheduleSession(session(UNKNOWN).build()), "group", named(UNKNOWN)));
        return rows.stream();
    }

    /** A Timestamp out of its range, which JSON cannot carry. */
    private static Scenario invalidTimestamp(UnaryOperator<ScheduleSessionRequest.Builder> change) {
        return invalidSession("start_time", change).notInJson();
    }

    private static Scenario invalidSession(String field, UnaryOperator<ScheduleSessionRequest.Builder> change) {
        return invalid("ScheduleSession: invalid " + field + " " + abbreviate(change.apply(session(0)).build()),
                g -> g.group(10), (w, g) -> w.scheduleSession(change.apply(session(g.id())).build()), field);
    }
}
