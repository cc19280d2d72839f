package dev.tandem.system;

import com.google.protobuf.FieldMask;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.User;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * {@link LoadWire} over REST through a {@link RestBalancer}. Bodies are the proto requests printed
 * by protobuf's JSON mapping (path fields left out), answers are parsed back strictly.
 */
final class RestLoadWire implements LoadWire {

    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();
    private static final JsonFormat.Parser PARSER = JsonFormat.parser();

    private final RestBalancer balancer;

    RestLoadWire(RestBalancer balancer) {
        this.balancer = balancer;
    }

    @Override
    public String name() {
        return "REST";
    }

    @Override
    public Group getGroup(long id) {
        return parse(call("GET", "/api/v1/groups/" + id, null, 200), Group.newBuilder());
    }

    @Override
    public ListGroupsResponse listGroups(String subject, int pageSize) {
        return parse(call("GET", "/api/v1/groups?subject=" + URLEncoder.encode(subject, StandardCharsets.UTF_8)
                + "&page_size=" + pageSize, null, 200), ListGroupsResponse.newBuilder());
    }

    @Override
    public User getUser(long id) {
        return parse(call("GET", "/api/v1/users/" + id, null, 200), User.newBuilder());
    }

    @Override
    public User createUser(String name, String email) {
        return parse(call("POST", "/api/v1/users", CreateUserRequest.newBuilder().setName(name).setEmail(email).build(), 201),
                User.newBuilder());
    }

    @Override
    public Group updateGroup(long id, String name, int capacity, long expectedVersion) {
        UpdateGroupRequest body = UpdateGroupRequest.newBuilder()
                .setGroup(Group.newBuilder().setName(name).setCapacity(capacity))
                .setUpdateMask(FieldMask.newBuilder().addPaths("name").addPaths("capacity"))
                .setExpectedVersion(expectedVersion).build();
        return parse(call("PATCH", "/api/v1/groups/" + id, body, 200), Group.newBuilder());
    }

    @Override
    public Membership joinGroup(long groupId, long userId) {
        return parse(call("POST", "/api/v1/groups/" + groupId + "/members", JoinGroupRequest.newBuilder().setUserId(userId).build(), 201),
                Membership.newBuilder());
    }

    @Override
    public void leaveGroup(long groupId, long userId) {
        call("DELETE", "/api/v1/groups/" + groupId + "/members/" + userId, null, 204);
    }

    private RestBalancer.Answer call(String method, String path, Message body, int expectedStatus) {
        boolean write = !method.equals("GET");
        String json;
        try {
            json = body == null ? null : PRINTER.print(body);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
        RestBalancer.Answer answer = balancer.send(method, path, json, write);
        if (answer.status() != expectedStatus) {
            throw new IllegalStateException(method + " " + path + " answered " + answer.status() + " from :" + answer.port()
                    + ", expected " + expectedStatus + ": " + answer.body());
        }
        return answer;
    }

    @SuppressWarnings("unchecked")
    private static <T extends Message> T parse(RestBalancer.Answer answer, Message.Builder into) {
        try {
            PARSER.merge(answer.body(), into);
            return (T) into.build();
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("unparseable answer from :" + answer.port() + ": " + answer.body(), e);
        }
    }
}
