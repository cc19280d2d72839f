package dev.tandem.system;

import com.google.protobuf.Empty;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.GroupSummary;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.system.WireScenarios.Given;
import dev.tandem.system.WireScenarios.Scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static dev.tandem.system.WireScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of {@link WireScenarios} about groups themselves: GetGroup, ListGroups, CreateGroup,
 * UpdateGroup, DeleteGroup and GetLeaderboard.
 */
final class GroupScenarios {

    private GroupScenarios() {
    }

    static Stream<Scenario> rows() {
        return Stream.of(getGroup(), listGroups(), createGroup(), updateGroup(), deleteGroup(), getLeaderboard()).flatMap(s -> s);
    }

    static Stream<Scenario> getGroup() {
        Stream<Scenario> found = Stream.of(ok("GetGroup: a group with members, ratings and sessions carries every field",
                g -> g.group(10).member(42).rating(42, 4).rating(43, 5).session(),
                (w, g) -> w.getGroup(get(g.id())),
                (Group read, Wire w, Given g) -> {
                    assertThat(read.getId()).isEqualTo(g.id());
                    assertThat(read.getName()).isEqualTo("Scenario group");
                    assertThat(read.getSubject()).isEqualTo("history");
                    assertThat(read.getDescription()).isEqualTo("Made for one row");
                    assertThat(read.getCapacity()).isEqualTo(10);
                    assertThat(read.getOwnerId()).isEqualTo(1);
                    assertThat(read.getOwnerName()).isNotEmpty()
                            .isEqualTo(g.database.value("SELECT name FROM users WHERE id = 1"));
                    assertThat(read.getMemberCount()).isEqualTo(2);
                    assertThat(read.getRatingCount()).isEqualTo(2);
                    assertThat(read.getAverageRating()).isEqualTo(4.5);
                    assertThat(read.getVersion()).isEqualTo(1);
                    assertThat(read.getCreateTime()).isEqualTo(g.group.getCreateTime());
                    assertThat(read.hasCreateTime()).isTrue();
                    assertThat(read.getNextSessionsList()).containsExactly(g.session);
                }));
        Stream<Scenario> unknown = Stream.of(UNKNOWN, 0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE).map(id ->
                notFound("GetGroup: unknown id " + id + " is NOT_FOUND", NOTHING, (w, g) -> w.getGroup(get(id)),
                        "group", named(id)));
        return Stream.concat(found, unknown);
    }

    static Stream<Scenario> listGroups() {
        List<Scenario> rows = new ArrayList<>();
        for (int pageSize : new int[] {1, 7, 1000}) {
            rows.add(ok("ListGroups: walking a subject by " + pageSize + " returns each group once in id order",
                    g -> {
                        g.ownSubject();
                        for (int i = 0; i < 9; i++) {
                            g.group(5);
                        }
                    },
                    (w, g) -> walk(w, g.subject, pageSize),
                    (List<GroupSummary> walked, Wire w, Given g) -> assertThat(walked).extracting(GroupSummary::getId)
                            .containsExactlyElementsOf(g.database.column(
                                    "SELECT id FROM study_groups WHERE subject = ? ORDER BY id", g.subject).stream()
                                    .map(Long::parseLong).toList())
                            .hasSize(9)));
        }
        rows.add(ok("ListGroups: rows carry the summary of each group", g -> g.ownSubject().group(5).member(42).rating(42, 3),
                (w, g) -> w.listGroups(list(g.subject, 0, "")),
                (ListGroupsResponse page, Wire w, Given g) -> {
                    assertThat(page.getGroupsList()).containsExactly(GroupSummary.newBuilder().setId(g.id())
                            .setName("Scenario group").setSubject(g.subject).setCapacity(5).setMemberCount(2)
                            .setAverageRating(3).build());
                    assertThat(page.getNextPageToken()).isEmpty();
                }));
        rows.add(ok("ListGroups: page size 0 means the default of 20", NOTHING, (w, g) -> w.listGroups(list("", 0, "")),
                (ListGroupsResponse page, Wire w, Given g) -> {
                    assertThat(page.getGroupsList()).hasSize(20).extracting(GroupSummary::getId).isSorted();
                    assertThat(page.getNextPageToken()).isNotEmpty();
                }));
        rows.add(ok("ListGroups: an unknown subject is an empty last page", NOTHING,
                (w, g) -> w.listGroups(list("astrology", 0, "")),
                (ListGroupsResponse page, Wire w, Given g) -> assertThat(page).isEqualTo(ListGroupsResponse.getDefaultInstance())));
        for (int size : new int[] {-1, 1001, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            rows.add(invalid("ListGroups: page size " + size, NOTHING, (w, g) -> w.listGroups(list("", size, "")), "page_size"));
        }
        for (String token : List.of("not a token", "!!!!", "AAAA", "%%%", "eyJhZnRlciI6MX0")) {
            rows.add(invalid("ListGroups: malformed page token '" + token + "'", NOTHING,
                    (w, g) -> w.listGroups(list("", 0, token)), "page_token"));
        }
        for (String token : List.of("not-a-token!", "AAAA", "CgdwaHlzaWNzEAA", "%%%")) {
            rows.add(invalid("ListGroups: malformed page token '" + token + "' of physics", NOTHING,
                    (w, g) -> w.listGroups(list("physics", 0, token)), "page_token"));
        }
        for (String other : List.of("biology", "")) {
            rows.add(invalid("ListGroups: a physics page token under subject '" + other + "'", NOTHING,
                    (w, g) -> w.listGroups(list(other, 1, w.listGroups(list("physics", 1, "")).getNextPageToken())),
                    "page_token"));
        }
        rows.add(invalid("ListGroups: subject longer than 50", NOTHING, (w, g) -> w.listGroups(list("s".repeat(51), 0, "")),
                "subject"));
        // MySQL would match these to physics ignoring case and trailing spaces, under cache keys that
        // no write to physics clears
        for (String notASubject : SUBJECT_FILTERS_NOT_SUBJECTS) {
            rows.add(invalid("ListGroups: subject '" + notASubject + "'", NOTHING,
                    (w, g) -> w.listGroups(list(notASubject, 0, "")), "subject"));
        }
        return rows.stream();
    }

    /** Every row of a subject page by page, checking that each page but the last is full. */
    static List<GroupSummary> walk(Wire wire, String subject, int pageSize) {
        List<GroupSummary> rows = new ArrayList<>();
        String token = "";
        for (int pages = 0; pages <= 100; pages++) {
            ListGroupsResponse page = wire.listGroups(list(subject, pageSize, token));
            rows.addAll(page.getGroupsList());
            token = page.getNextPageToken();
            if (token.isEmpty()) {
                assertThat(page.getGroupsCount()).isLessThanOrEqualTo(pageSize);
                return rows;
            }
            assertThat(page.getGroupsCount()).isEqualTo(pageSize);
        }
        throw new AssertionError("ListGroups did not reach a last page");
    }

    static Stream<Scenario> createGroup() {
        List<Scenario> rows = new ArrayList<>();
        rows.add(ok("CreateGroup: the group comes back with its owner as first member and reads back the same", NOTHING,
                (w, g) -> w.createGroup(VALID_GROUP),
                (Group created, Wire w, Given g) -> {
                    assertThat(created.getId()).isPositive();
                    assertThat(created.getName()).isEqualTo("Graph theory");
                    assertThat(created.getSubject()).isEqualTo("algorithms");
                    assertThat(created.getDescription()).isEqualTo("Cliques and colourings");
                    assertThat(created.getCapacity()).isEqualTo(10);
                    assertThat(created.getOwnerId()).isEqualTo(7);
                    assertThat(created.getOwnerName()).isEqualTo(g.database.value("SELECT name FROM users WHERE id = 7"));
                    assertThat(created.getMemberCount()).isEqualTo(1);
                    assertThat(created.getRatingCount()).isZero();
                    assertThat(created.getAverageRating()).isZero();
                    assertThat(created.getNextSessionsList()).isEmpty();
                    assertThat(created.getVersion()).isEqualTo(1);
                    assertThat(created.hasCreateTime()).isTrue();
                    assertThat(w.getGroup(get(created.getId()))).isEqualTo(created);
                    assertThat(g.count("group_members WHERE group_id = ? AND user_id = 7", created.getId())).isEqualTo(1);
                    assertThat(g.count("group_members WHERE group_id = ?", created.getId())).isEqualTo(1);
                }));
        for (int capacity : new int[] {2, 500}) {
            rows.add(ok("CreateGroup: capacity " + capacity + " is within bounds", NOTHING,
                    (w, g) -> w.createGroup(VALID_GROUP.toBuilder().setCapacity(capacity).build()),
                    (Group created, Wire w, Given g) -> assertThat(created.getCapacity()).isEqualTo(capacity)));
        }
        rows.add(ok("CreateGroup: the description may be omitted", NOTHING,
                (w, g) -> w.createGroup(VALID_GROUP.toBuilder().clearDescription().build()),
                (Group created, Wire w, Given g) -> assertThat(created.getDescription()).isEmpty()));
        Stream.of(
                invalidGroup("name", r -> r.setName("")),
                invalidGroup("name", r -> r.setName("   ")),
                invalidGroup("name", r -> r.setName("\u00A0\u00A0\u00A0")),  // no-break spaces: blank, though not to String.trim
                invalidGroup("name", r -> r.setName("\u3000\u200B\uFEFF")),  // an ideographic space and two invisible characters
                invalidGroup("name", r -> r.setName("ab")),
                invalidGroup("name", r -> r.setName("n".repeat(101))),
                invalidGroup("subject", r -> r.setSubject("")),
                invalidGroup("subject", r -> r.setSubject("Not A Subject")),
                invalidGroup("subject", r -> r.setSubject("Linear Algebra")),
                invalidGroup("subject", r -> r.setSubject("double--hyphen")),
                invalidGroup("subject", r -> r.setSubject("s".repeat(51))),
                invalidGroup("description", r -> r.setDescription("d".repeat(1001))),
                invalidGroup("capacity", r -> r.setCapacity(1)),
                invalidGroup("capacity", r -> r.setCapacity(0)),
                invalidGroup("capacity", r -> r.setCapacity(501)),
                invalidGroup("capacity", r -> r.setCapacity(-5)),
                invalidGroup("owner_id", r -> r.setOwnerId(0)),
                invalidGroup("owner_id", r -> r.setOwnerId(-1)),
                invalidGroup("owner_id", r -> r.setOwnerId(-3))).forEach(rows::add);
        rows.add(invalid("CreateGroup: an empty request names every required field", NOTHING,
                (w, g) -> w.createGroup(CreateGroupRequest.getDefaultInstance()), "name", "subject", "capacity", "owner_id"));
        rows.add(invalid("CreateGroup: every invalid field is named at once", NOTHING,
                (w, g) -> w.createGroup(CreateGroupRequest.newBuilder().setName("x").setSubject("Bad Subject")
                        .setDescription("d".repeat(1001)).setCapacity(1).setOwnerId(0).build()),
                "name", "subject", "description", "capacity", "owner_id"));
        rows.add(invalid("CreateGroup: name, subject and capacity invalid at once", NOTHING,
                (w, g) -> w.createGroup(CreateGroupRequest.newBuilder().setName("x").setSubject("Bad Subject")
                        .setCapacity(501).setOwnerId(1).build()),
                "name", "subject", "capacity"));
        rows.add(notFound("CreateGroup: an unknown owner is NOT_FOUND", NOTHING,
                (w, g) -> w.createGroup(VALID_GROUP.toBuilder().setOwnerId(UNKNOWN).build()), "user", named(UNKNOWN)));
        return rows.stream();
    }

    private static Scenario invalidGroup(String field, UnaryOperator<CreateGroupRequest.Builder> change) {
        CreateGroupRequest request = change.apply(VALID_GROUP.toBuilder()).build();
        return invalid("CreateGroup: invalid " + field + " " + abbreviate(request), NOTHING,
                (w, g) -> w.createGroup(request), field);
    }


    static Stream<Scenario> updateGroup() {
        List<Scenario> rows = new ArrayList<>();
        rows.add(ok("UpdateGroup: changes only the masked fields and bumps the version", g -> g.group(10),
                (w, g) -> w.updateGroup(update(g.id(), 1, Group.newBuilder().setName("Renamed circle").setCapacity(499)
                        .setDescription("ignored: not in the mask").build(), "name", "capacity")),
                (Group updated, Wire w, Given g) -> {
                    assertThat(updated).isEqualTo(g.group.toBuilder().setName("Renamed circle").setCapacity(499)
                            .setVersion(2).build());
                    assertThat(w.getGroup(get(g.id()))).isEqualTo(updated);
                    assertThat(g.database.value("SELECT CONCAT_WS('|', name, capacity, description, version) "
                            + "FROM study_groups WHERE id = ?", g.id())).isEqualTo("Renamed circle|499|Made for one row|2");
                }));
        rows.add(ok("UpdateGroup: the description can be cleared", g -> g.group(10),
                (w, g) -> w.updateGroup(update(g.id(), 1, Group.getDefaultInstance(), "description")),
                (Group updated, Wire w, Given g) -> assertThat(updated.getDescription()).isEmpty()));
        rows.add(ok("UpdateGroup: a group sent back as it was read, output-only fields and all", g -> g.group(10).member(42),
                (w, g) -> w.updateGroup(update(g.id(), 1, g.group.toBuilder().setName("Read, changed, written").build(), "name")),
                (Group updated, Wire w, Given g) -> assertThat(updated).isEqualTo(g.group.toBuilder()
                        .setName("Read, changed, written").setVersion(2).build())));
        rows.add(ok("UpdateGroup: capacity down to exactly the member count", g -> g.group(10).member(42).member(43),
                (w, g) -> w.updateGroup(update(g.id(), 1, Group.newBuilder().setCapacity(3).build(), "capacity")),
                (Group updated, Wire w, Given g) -> assertThat(updated.getCapacity()).isEqualTo(3)));
        Group name = Group.newBuilder().setName("New name").build();
        Stream.of(
                invalidUpdate("update_mask", id -> update(id, 1, name)),
                invalidUpdate("update_mask", id -> update(id, 1, name).toBuilder().clearUpdateMask().build()),
                invalidUpdate("update_mask", id -> update(id, 1, Group.newBuilder().setOwnerId(2).build(), "owner_id")),
                invalidUpdate("update_mask", id -> update(id, 1, name, "name", "version")),
                invalidUpdate("update_mask", id -> update(id, 1, name, "group.name")),
                invalidUpdate("expected_version", id -> update(id, -1, name, "name")),
                // Absent (proto3's 0; REST JSON leaves it out): required, and never a version a group is at
                // (they start at 1). Was ABORTED "no longer at version 0; read it again and retry", which
                // no re-read and retry of the same request could ever get past.
                invalidUpdate("expected_version", id -> update(id, 0, name, "name")),
                invalidUpdate("group.name", id -> update(id, 1, Group.newBuilder().setName("ab").build(), "name")),
                invalidUpdate("group.name", id -> update(id, 1, Group.getDefaultInstance(), "name")),
                invalidUpdate("group.name", id -> update(id, 1, name, "name").toBuilder().clearGroup().build()),
                invalidUpdate("group.subject", id -> update(id, 1, Group.newBuilder().setSubject("No Caps").build(), "subject")),
                invalidUpdate("group.description", id -> update(id, 1, Group.newBuilder().setDescription("d".repeat(1001)).build(),
                        "description")),
                invalidUpdate("group.capacity", id -> update(id, 1, Group.newBuilder().setCapacity(1).build(), "capacity")),
                invalidUpdate("group.capacity", id -> update(id, 1, Group.newBuilder().setCapacity(501).build(), "capacity")))
                .forEach(rows::add);
        rows.add(notFound("UpdateGroup: an unknown group is NOT_FOUND", NOTHING,
                (w, g) -> w.updateGroup(update(UNKNOWN, 1, name, "name")), "group", named(UNKNOWN)));
        rows.add(fails("UpdateGroup: a stale expected version is ABORTED and the winner keeps the row",
                g -> g.group(10).renamed("The winner"),
                (w, g) -> w.updateGroup(update(g.id(), 1, Group.newBuilder().setName("The loser").build(), "name")),
                "ABORTED", "group", g -> String.valueOf(g.id())));
        rows.add(fails("UpdateGroup: capacity below the member count is FAILED_PRECONDITION",
                g -> g.group(10).member(42).member(43),
                (w, g) -> w.updateGroup(update(g.id(), 1, Group.newBuilder().setCapacity(2).build(), "capacity")),
                "FAILED_PRECONDITION", null, named(null)));
        return rows.stream();
    }

    private static Scenario invalidUpdate(String field, Function<Long, UpdateGroupRequest> request) {
        return invalid("UpdateGroup: invalid " + field + " " + abbreviate(request.apply(0L)), g -> g.group(10),
                (w, g) -> w.updateGroup(request.apply(g.id())), field);
    }

    static Stream<Scenario> deleteGroup() {
        return Stream.of(
                ok("DeleteGroup: the group goes with its members, sessions and ratings",
                        g -> g.group(10).member(42).rating(42, 4).session(),
                        (w, g) -> w.deleteGroup(DeleteGroupRequest.newBuilder().setId(g.id()).build()),
                        (Empty answer, Wire w, Given g) -> {
                            assertThat(answer).isEqualTo(Empty.getDefaultInstance());
                            for (String table : List.of("study_groups WHERE id = ?", "group_members WHERE group_id = ?",
                                    "study_sessions WHERE group_id = ?", "ratings WHERE group_id = ?")) {
                                assertThat(g.count(table, g.id())).as(table).isZero();
                            }
                            assertThat(failure(() -> w.getGroup(get(g.id())))).isEqualTo(
                                    new Wire.Failure("NOT_FOUND", List.of(), "group", String.valueOf(g.id()), null, ""));
                        }),
                ok("DeleteGroup: at the current version", g -> g.group(10).renamed("Now at version 2"),
                        (w, g) -> w.deleteGroup(DeleteGroupRequest.newBuilder().setId(g.id()).setExpectedVersion(2).build()),
                        (Empty answer, Wire w, Given g) -> assertThat(g.count("study_groups WHERE id = ?", g.id())).isZero()),
                // Version 0 is "any version" on the wire; versions start at 1, so the version a client
                // read before another's change is never 0 (a group's first: failed while groups began at 0).
                fails("DeleteGroup: the version read before another's change is ABORTED and keeps the group",
                        g -> g.group(10).renamed("Now at version 2"),
                        (w, g) -> w.deleteGroup(DeleteGroupRequest.newBuilder().setId(g.id()).setExpectedVersion(1).build()),
                        "ABORTED", "group", g -> String.valueOf(g.id())),
                fails("DeleteGroup: a far-off expected version is ABORTED", g -> g.group(10).renamed("Now at version 2"),
                        (w, g) -> w.deleteGroup(DeleteGroupRequest.newBuilder().setId(g.id()).setExpectedVersion(7).build()),
                        "ABORTED", "group", g -> String.valueOf(g.id())),
                notFound("DeleteGroup: an unknown group is NOT_FOUND", NOTHING,
                        (w, g) -> w.deleteGroup(DeleteGroupRequest.newBuilder().setId(UNKNOWN).build()), "group", named(UNKNOWN)),
                notFound("DeleteGroup: a deleted group is NOT_FOUND", g -> g.group(10).deleted(),
                        (w, g) -> w.deleteGroup(DeleteGroupRequest.newBuilder().setId(g.id()).build()),
                        "group", g -> String.valueOf(g.id())),
                notFound("JoinGroup: a deleted group is NOT_FOUND", g -> g.group(10).deleted(),
                        (w, g) -> w.joinGroup(join(g.id(), 2)), "group", g -> String.valueOf(g.id())));
    }

    static Stream<Scenario> getLeaderboard() {
        List<Scenario> rows = new ArrayList<>();
        rows.add(ok("GetLeaderboard: the ten best-rated groups, best first", NOTHING,
                (w, g) -> w.getLeaderboard(GetLeaderboardRequest.getDefaultInstance()),
                (Leaderboard board, Wire w, Given g) -> {
                    assertThat(board.getSubject()).isEmpty();
                    assertThat(board.getGroupsList()).hasSize(10).extracting(GroupSummary::getAverageRating)
                            .isSortedAccordingTo((a, b) -> Double.compare(b, a));
                    assertThat(board.getGroups(0).getAverageRating()).isEqualTo(Double.parseDouble(g.database.value(
                            "SELECT MAX(a) FROM (SELECT ROUND(AVG(stars), 2) AS a FROM ratings GROUP BY group_id) t")));
                }));
        rows.add(ok("GetLeaderboard: one subject holds only that subject's rated groups, best first",
                g -> {
                    g.ownSubject().group(5).rating(42, 2);
                    g.group(5).rating(42, 5);
                    g.group(5).rating(42, 4).rating(43, 3);
                    g.group(5);
                },
                (w, g) -> w.getLeaderboard(leaderboard(g.subject, 100)),
                (Leaderboard board, Wire w, Given g) -> {
                    assertThat(board.getSubject()).isEqualTo(g.subject);
                    assertThat(board.getGroupsList()).allSatisfy(s -> assertThat(s.getSubject()).isEqualTo(g.subject))
                            .extracting(GroupSummary::getId)
                            .containsExactly(g.made.get(1), g.made.get(2), g.made.get(0));
                    assertThat(board.getGroupsList()).extracting(GroupSummary::getAverageRating).containsExactly(5.0, 3.5, 2.0);
                }));
        rows.add(ok("GetLeaderboard: limit 1", NOTHING, (w, g) -> w.getLeaderboard(leaderboard("", 1)),
                (Leaderboard board, Wire w, Given g) -> assertThat(board.getGroupsList()).hasSize(1)));
        rows.add(ok("GetLeaderboard: limit 100 lists every rated group up to 100", NOTHING,
                (w, g) -> w.getLeaderboard(leaderboard("", 100)),
                (Leaderboard board, Wire w, Given g) -> assertThat(board.getGroupsList()).hasSize((int) Math.min(100,
                        g.count("(SELECT DISTINCT group_id FROM ratings) rated")))));
        for (int limit : new int[] {-1, 101, Integer.MAX_VALUE}) {
            rows.add(invalid("GetLeaderboard: limit " + limit, NOTHING, (w, g) -> w.getLeaderboard(leaderboard("", limit)),
                    "limit"));
        }
        rows.add(invalid("GetLeaderboard: subject longer than 50", NOTHING,
                (w, g) -> w.getLeaderboard(leaderboard("s".repeat(51), 0)), "subject"));
        for (String notASubject : SUBJECT_FILTERS_NOT_SUBJECTS) {
            rows.add(invalid("GetLeaderboard: subject '" + notASubject + "'", NOTHING,
                    (w, g) -> w.getLeaderboard(leaderboard(notASubject, 0)), "subject"));
        }
        return rows.stream();
    }

    /** Filters that MySQL's collation would match to physics, though no subject is written so. */
    private static final List<String> SUBJECT_FILTERS_NOT_SUBJECTS = List.of("PHYSICS", "Physics", "physics ", " physics");
}
