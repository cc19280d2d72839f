package dev.tandem.system;

import com.google.protobuf.FieldMask;
import com.google.protobuf.Message;
import com.google.protobuf.util.Timestamps;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.GroupSummary;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.RateGroupRequest;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.User;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The design's promise "the same request gives the same data on both wires", checked end to end:
 * both service jars run as processes over one freshly seeded database, every read is asked of
 * gRPC and of REST in both its representations (JSON and protobuf) and compared message by
 * message, and after each kind of write — made through one wire or another — the affected reads
 * are compared again. Each operation's outcomes one by one — every error class, every bad input —
 * are the scenario table (WireScenarios, run by WireScenariosTest on the same two processes).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(BothServices.Extension.class)
class WireParityTest {

    static RestWire rest;
    static RestWire restProtobuf;
    static GrpcWire grpc;

    @BeforeAll
    static void connect(BothServices services) {
        rest = services.rest;
        restProtobuf = services.restProtobuf;
        grpc = services.grpc;
    }

    /** Asks every wire and insists on equal messages; returns the answer. */
    static <T extends Message> T same(Function<Wire, T> call) {
        T viaGrpc = call.apply(grpc);
        for (Wire wire : List.of(rest, restProtobuf)) {
            assertThat(call.apply(wire)).as(wire.name() + " and gRPC answers").isEqualTo(viaGrpc);
        }
        return viaGrpc;
    }

    /** Asks every wire and insists on the same failure: status name, fields and resource. */
    static Wire.Failure sameFailure(Function<Wire, ?> call) {
        Wire.Failure viaGrpc = catchThrowableOfType(Wire.Failure.class, () -> call.apply(grpc));
        assertThat(viaGrpc).as("gRPC failure").isNotNull();
        for (Wire wire : List.of(rest, restProtobuf)) {
            Wire.Failure failure = catchThrowableOfType(Wire.Failure.class, () -> call.apply(wire));
            assertThat(failure).as(wire.name() + " failure").isNotNull();
            assertThat(failure).as(wire.name() + " and gRPC failures").isEqualTo(viaGrpc);
        }
        return viaGrpc;
    }

    @Test
    @Order(1)
    void everySeededGroupAndUserReadsTheSame() {
        for (long id = 1; id <= 50; id++) {
            long groupId = id;
            Group group = same(w -> w.getGroup(GetGroupRequest.newBuilder().setId(groupId).build()));
            assertThat(group.getId()).isEqualTo(groupId);
        }
        for (long id = 1; id <= 100; id++) {
            long userId = id;
            same(w -> w.getUser(GetUserRequest.newBuilder().setId(userId).build()));
        }
    }

    @Test
    @Order(2)
    void listingsAndLeaderboardsReadTheSame() {
        for (String subject : List.of("", "physics", "linear-algebra", "no-such-subject")) {
            for (int pageSize : List.of(0, 1, 7, 1000)) {
                walk(subject, pageSize);
            }
            for (int limit : List.of(0, 1, 100)) {
                same(w -> w.getLeaderboard(GetLeaderboardRequest.newBuilder().setSubject(subject).setLimit(limit).build()));
            }
        }
    }

    @Test
    @Order(3)
    void everyKindOfWriteIsSeenTheSameOnBothWires() {
        // Users: created on REST, read on both.
        User ada = rest.createUser(CreateUserRequest.newBuilder().setName("Ada").setEmail("ada@parity.test").build());
        assertThat((Message) same(w -> w.getUser(GetUserRequest.newBuilder().setId(ada.getId()).build()))).isEqualTo(ada);
        User alan = grpc.createUser(CreateUserRequest.newBuilder().setName("Alan").setEmail("alan@parity.test").build());
        assertThat((Message) same(w -> w.getUser(GetUserRequest.newBuilder().setId(alan.getId()).build()))).isEqualTo(alan);
        User grace = restProtobuf.createUser(CreateUserRequest.newBuilder().setName("Grace").setEmail("grace@parity.test").build());
        assertThat((Message) same(w -> w.getUser(GetUserRequest.newBuilder().setId(grace.getId()).build()))).isEqualTo(grace);

        // Create on gRPC.
        Group created = grpc.createGroup(CreateGroupRequest.newBuilder().setName("Parity circle").setSubject("physics")
                .setDescription("both wires").setCapacity(3).setOwnerId(ada.getId()).build());
        GetGroupRequest getCreated = GetGroupRequest.newBuilder().setId(created.getId()).build();
        assertThat((Message) same(w -> w.getGroup(getCreated))).isEqualTo(created);
        assertThat(walk("physics", 7)).extracting(GroupSummary::getId).contains(created.getId());

        // Update on REST, with a field mask and the version just read.
        Group updated = rest.updateGroup(UpdateGroupRequest.newBuilder().setId(created.getId())
                .setGroup(Group.newBuilder().setName("Parity circle II").setCapacity(4))
                .setUpdateMask(FieldMask.newBuilder().addPaths("name").addPaths("capacity"))
                .setExpectedVersion(created.getVersion()).build());
        assertThat(updated.getName()).isEqualTo("Parity circle II");
        assertThat((Message) same(w -> w.getGroup(getCreated))).isEqualTo(updated);

        // Join on gRPC, leave on REST.
        grpc.joinGroup(JoinGroupRequest.newBuilder().setGroupId(created.getId()).setUserId(alan.getId()).build());
        assertThat(same(w -> w.getGroup(getCreated)).getMemberCount()).isEqualTo(2);
        walk("physics", 1);
        rest.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(created.getId()).setUserId(alan.getId()).build());
        assertThat(same(w -> w.getGroup(getCreated)).getMemberCount()).isEqualTo(1);

        // Rate on REST and on gRPC.
        rest.rateGroup(RateGroupRequest.newBuilder().setGroupId(created.getId()).setUserId(ada.getId()).setStars(5).build());
        grpc.rateGroup(RateGroupRequest.newBuilder().setGroupId(created.getId()).setUserId(alan.getId()).setStars(2)
                .setComment("slow").build());
        restProtobuf.rateGroup(RateGroupRequest.newBuilder().setGroupId(created.getId()).setUserId(grace.getId())
                .setStars(2).build());
        Group rated = same(w -> w.getGroup(getCreated));
        assertThat(rated.getRatingCount()).isEqualTo(3);
        assertThat(rated.getAverageRating()).isEqualTo(3.0);
        same(w -> w.getLeaderboard(GetLeaderboardRequest.newBuilder().setSubject("physics").setLimit(100).build()));

        // Schedule on both wires; the next sessions come back in start order.
        Instant tomorrow = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        rest.scheduleSession(ScheduleSessionRequest.newBuilder().setGroupId(created.getId()).setTopic("Later")
                .setStartTime(Timestamps.fromMillis(tomorrow.plus(2, ChronoUnit.HOURS).toEpochMilli()))
                .setDurationMinutes(60).setLocation("Lab B").build());
        grpc.scheduleSession(ScheduleSessionRequest.newBuilder().setGroupId(created.getId()).setTopic("Sooner")
                .setStartTime(Timestamps.fromMillis(tomorrow.toEpochMilli())).setDurationMinutes(90).build());
        Group scheduled = same(w -> w.getGroup(getCreated));
        assertThat(scheduled.getNextSessionsList()).extracting(s -> s.getTopic()).containsExactly("Sooner", "Later");

        // Delete on gRPC: gone on both.
        grpc.deleteGroup(DeleteGroupRequest.newBuilder().setId(created.getId()).setExpectedVersion(updated.getVersion()).build());
        assertThat(sameFailure(w -> w.getGroup(getCreated)).code).isEqualTo("NOT_FOUND");
        assertThat(walk("physics", 1000)).extracting(GroupSummary::getId).doesNotContain(created.getId());
    }

    /** Walks every page of a listing on both wires, comparing each page; returns all rows. */
    static List<GroupSummary> walk(String subject, int pageSize) {
        List<GroupSummary> rows = new ArrayList<>();
        String token = "";
        do {
            String pageToken = token;
            ListGroupsResponse page = same(w -> w.listGroups(ListGroupsRequest.newBuilder().setSubject(subject)
                    .setPageSize(pageSize).setPageToken(pageToken).build()));
            rows.addAll(page.getGroupsList());
            token = page.getNextPageToken();
        } while (!token.isEmpty());
        return rows;
    }
}
