package dev.tandem.grpc.hostile;

import com.google.protobuf.FieldMask;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.RateGroupRequest;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.WatchGroupRequest;
import io.grpc.MethodDescriptor;
import io.grpc.Status.Code;

import java.util.List;
import java.util.function.Function;

import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;

/**
 * Every RPC of tandem.v1.StudyGroupService, with a request that succeeds (built from the seeded
 * rows it acts on) and, per field, what the service answers when that field is absent, negative or
 * huge. Hostile requests are made from the valid one by breaking one field.
 */
enum GrpcOperation {

    GET_GROUP(StudyGroupServiceGrpc.getGetGroupMethod(),
            rows -> GetGroupRequest.newBuilder().setId(rows.group()).build(),
            Rule.id("id", NOT_FOUND)),
    LIST_GROUPS(StudyGroupServiceGrpc.getListGroupsMethod(),
            rows -> ListGroupsRequest.newBuilder().setSubject("physics").setPageSize(5).build(),
            Rule.optional("subject"),
            Rule.int32("page_size", null, 1001),
            Rule.optional("page_token")),
    CREATE_GROUP(StudyGroupServiceGrpc.getCreateGroupMethod(),
            rows -> CreateGroupRequest.newBuilder().setName("Graph theory").setSubject("algorithms")
                    .setDescription("Cliques and cuts").setCapacity(10).setOwnerId(1).build(),
            Rule.required("name"),
            Rule.required("subject"),
            Rule.optional("description"),
            Rule.int32("capacity", INVALID_ARGUMENT, 1000),
            Rule.int64("owner_id", INVALID_ARGUMENT, INVALID_ARGUMENT, NOT_FOUND)),
    UPDATE_GROUP(StudyGroupServiceGrpc.getUpdateGroupMethod(),
            rows -> UpdateGroupRequest.newBuilder().setId(rows.group())
                    .setGroup(Group.newBuilder().setName("Graph theory II").setCapacity(40))
                    .setUpdateMask(FieldMask.newBuilder().addPaths("name").addPaths("capacity"))
                    .setExpectedVersion(1).build(),
            Rule.id("id", NOT_FOUND),
            // Without a group, the masked fields are empty: the domain names those.
            new Rule("group", INVALID_ARGUMENT, null, null, null, List.of("group.name", "group.capacity")),
            Rule.required("group.name"),
            Rule.int32("group.capacity", INVALID_ARGUMENT, 1000),
            Rule.required("update_mask"),
            // Required: absent is 0, which no group is at (versions start at 1); a huge one is stale.
            Rule.int64("expected_version", INVALID_ARGUMENT, INVALID_ARGUMENT, ABORTED)),
    DELETE_GROUP(StudyGroupServiceGrpc.getDeleteGroupMethod(),
            rows -> DeleteGroupRequest.newBuilder().setId(rows.group()).setExpectedVersion(0).build(),
            Rule.id("id", NOT_FOUND),
            Rule.int64("expected_version", null, INVALID_ARGUMENT, ABORTED)),
    JOIN_GROUP(StudyGroupServiceGrpc.getJoinGroupMethod(),
            rows -> JoinGroupRequest.newBuilder().setGroupId(rows.group()).setUserId(rows.outsider()).build(),
            Rule.id("group_id", NOT_FOUND),
            Rule.int64("user_id", INVALID_ARGUMENT, INVALID_ARGUMENT, NOT_FOUND)),
    LEAVE_GROUP(StudyGroupServiceGrpc.getLeaveGroupMethod(),
            rows -> LeaveGroupRequest.newBuilder().setGroupId(rows.group()).setUserId(rows.member()).build(),
            Rule.id("group_id", NOT_FOUND),
            Rule.id("user_id", NOT_FOUND)),
    RATE_GROUP(StudyGroupServiceGrpc.getRateGroupMethod(),
            rows -> RateGroupRequest.newBuilder().setGroupId(rows.group()).setUserId(rows.outsider()).setStars(4)
                    .setComment("great").build(),
            Rule.id("group_id", NOT_FOUND),
            Rule.int64("user_id", INVALID_ARGUMENT, INVALID_ARGUMENT, NOT_FOUND),
            Rule.int32("stars", INVALID_ARGUMENT, 6),
            Rule.optional("comment")),
    SCHEDULE_SESSION(StudyGroupServiceGrpc.getScheduleSessionMethod(),
            rows -> ScheduleSessionRequest.newBuilder().setGroupId(rows.group()).setTopic("Flows")
                    .setStartTime(Timestamp.newBuilder().setSeconds(1_925_000_000L)) // 2031
                    .setDurationMinutes(90).setLocation("Room 1").build(),
            Rule.id("group_id", NOT_FOUND),
            Rule.required("topic"),
            Rule.required("start_time"),
            Rule.int32("duration_minutes", INVALID_ARGUMENT, 1000),
            Rule.optional("location")),
    GET_LEADERBOARD(StudyGroupServiceGrpc.getGetLeaderboardMethod(),
            rows -> GetLeaderboardRequest.newBuilder().setSubject("physics").setLimit(5).build(),
            Rule.optional("subject"),
            Rule.int32("limit", null, 101)),
    CREATE_USER(StudyGroupServiceGrpc.getCreateUserMethod(),
            rows -> CreateUserRequest.newBuilder().setName("Ann Hostile").setEmail("ann.hostile@example.test").build(),
            Rule.required("name"),
            Rule.required("email")),
    GET_USER(StudyGroupServiceGrpc.getGetUserMethod(),
            rows -> GetUserRequest.newBuilder().setId(rows.outsider()).build(),
            Rule.id("id", NOT_FOUND)),
    WATCH_GROUP(StudyGroupServiceGrpc.getWatchGroupMethod(),
            rows -> WatchGroupRequest.newBuilder().setId(rows.group()).build(),
            Rule.id("id", NOT_FOUND),
            Rule.optional("since"));

    /** The seeded rows a valid request acts on: a group with room, a non-owner member, an outsider. */
    record Rows(long group, long member, long outsider) {
    }

    /**
     * What the service answers for one field.
     *
     * @param path         field path from the request, e.g. "group.capacity"
     * @param absent       when the field is absent (its default): null if that is valid
     * @param negative     when an integer field is -1 (int64) or -1 / -2^31 (int32)
     * @param huge         when it is 2^63 - 1 (int64) or 2^31 - 1 (int32)
     * @param invalidInt32 for int32 fields, a value the domain refuses, used as the low 32 bits of
     *                     an overflowing varint (protobuf keeps only those bits for an int32)
     * @param namedWhenAbsent the fields the domain names when this one is absent
     */
    record Rule(String path, Code absent, Code negative, Code huge, Integer invalidInt32, List<String> namedWhenAbsent) {

        Rule(String path, Code absent, Code negative, Code huge, Integer invalidInt32) {
            this(path, absent, negative, huge, invalidInt32, List.of(path));
        }

        static Rule required(String path) {
            return new Rule(path, INVALID_ARGUMENT, null, null, null);
        }

        static Rule optional(String path) {
            return new Rule(path, null, null, null, null);
        }

        static Rule id(String path, Code notThere) {
            return new Rule(path, notThere, notThere, notThere, null);
        }

        static Rule int64(String path, Code absent, Code negative, Code huge) {
            return new Rule(path, absent, negative, huge, null);
        }

        static Rule int32(String path, Code absent, int invalid) {
            return new Rule(path, absent, INVALID_ARGUMENT, INVALID_ARGUMENT, invalid);
        }
    }

    final MethodDescriptor<?, ?> method;
    final Function<Rows, Message> valid;
    final List<Rule> rules;

    GrpcOperation(MethodDescriptor<?, ?> method, Function<Rows, Message> valid, Rule... rules) {
        this.method = method;
        this.valid = valid;
        this.rules = List.of(rules);
    }

    boolean isWrite() {
        return this != GET_GROUP && this != LIST_GROUPS && this != GET_LEADERBOARD && this != GET_USER
                && this != WATCH_GROUP;
    }

    /** The request's descriptor, from a default instance. */
    com.google.protobuf.Descriptors.Descriptor requestType() {
        return valid.apply(new Rows(1, 2, 3)).getDescriptorForType();
    }
}
