package dev.tandem.system;

import com.google.protobuf.Empty;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.tandem.auth.DevTokens;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.GroupDeleted;
import dev.tandem.proto.v1.Heartbeat;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloResponse;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.LeaveGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.RateGroupRequest;
import dev.tandem.proto.v1.Rating;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.StudySession;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.User;
import dev.tandem.proto.v1.WatchGroupRequest;
import dev.tandem.proto.v1.WatchGroupResponse;
import dev.tandem.testsupport.ServerSentEvents;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The REST wire, driven as a REST client would drive it from the API's google.api.http mapping, in
 * one of its two representations. JSON: request bodies are the proto request printed by protobuf's
 * JSON mapping (int64 as strings, path fields left out) and every response is parsed back with the
 * strict JsonFormat parser, so a field the REST service names differently from the proto fails the
 * test instead of vanishing. Protobuf: the same requests as binary bodies
 * ({@code application/x-protobuf}), the answers parsed as the messages they must be. Errors are
 * problem+json in both.
 */
final class RestWire implements Wire {

    enum Encoding {
        JSON("application/json"),
        PROTOBUF("application/x-protobuf");

        final String mediaType;

        Encoding(String mediaType) {
            this.mediaType = mediaType;
        }
    }

    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();
    private static final JsonFormat.Parser PARSER = JsonFormat.parser();

    /** Writes need a writer's bearer token; the services run with the development secret. */
    private static final String WRITER = "Bearer " + DevTokens.devWriter();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final Encoding encoding;

    RestWire(int port) {
        this(port, Encoding.JSON);
    }

    RestWire(int port, Encoding encoding) {
        this.base = "http://127.0.0.1:" + port + "/api/v1";
        this.encoding = encoding;
    }

    @Override
    public String name() {
        return encoding == Encoding.JSON ? "REST" : "REST (protobuf)";
    }

    @Override
    public Group getGroup(GetGroupRequest r) {
        return get("/groups/" + r.getId(), Group.newBuilder());
    }

    @Override
    public ListGroupsResponse listGroups(ListGroupsRequest r) {
        return get("/groups?subject=" + encode(r.getSubject()) + "&page_size=" + r.getPageSize()
                + "&page_token=" + encode(r.getPageToken()), ListGroupsResponse.newBuilder());
    }

    @Override
    public Group createGroup(CreateGroupRequest r) {
        return send("POST", "/groups", r, 201, Group.newBuilder());
    }

    @Override
    public Group updateGroup(UpdateGroupRequest r) {
        return send("PATCH", "/groups/" + r.getId(), r.toBuilder().clearId().build(), 200, Group.newBuilder());
    }

    @Override
    public Empty deleteGroup(DeleteGroupRequest r) {
        String query = r.getExpectedVersion() == 0 ? "" : "?expected_version=" + r.getExpectedVersion();
        return send("DELETE", "/groups/" + r.getId() + query, null, 204, Empty.newBuilder());
    }

    @Override
    public Membership joinGroup(JoinGroupRequest r) {
        return send("POST", "/groups/" + r.getGroupId() + "/members", r.toBuilder().clearGroupId().build(), 201,
                Membership.newBuilder());
    }

    @Override
    public Empty leaveGroup(LeaveGroupRequest r) {
        return send("DELETE", "/groups/" + r.getGroupId() + "/members/" + r.getUserId(), null, 204, Empty.newBuilder());
    }

    @Override
    public Rating rateGroup(RateGroupRequest r) {
        return send("POST", "/groups/" + r.getGroupId() + "/ratings", r.toBuilder().clearGroupId().build(), 201,
                Rating.newBuilder());
    }

    @Override
    public StudySession scheduleSession(ScheduleSessionRequest r) {
        return send("POST", "/groups/" + r.getGroupId() + "/sessions", r.toBuilder().clearGroupId().build(), 201,
                StudySession.newBuilder());
    }

    @Override
    public Leaderboard getLeaderboard(GetLeaderboardRequest r) {
        return get("/leaderboard?subject=" + encode(r.getSubject()) + "&limit=" + r.getLimit(), Leaderboard.newBuilder());
    }

    @Override
    public User createUser(CreateUserRequest r) {
        return send("POST", "/users", r, 201, User.newBuilder());
    }

    @Override
    public User getUser(GetUserRequest r) {
        return get("/users/" + r.getId(), User.newBuilder());
    }

    @Override
    public HelloResponse hello(HelloRequest r) {
        return get("/hello", HelloResponse.newBuilder());
    }

    /**
     * GET .../events as an EventSource would read it (its representation is text/event-stream
     * whatever this wire's encoding), each block read back as the message it stands for: its
     * {@code id:} the position; {@code event:group} with GetGroup's JSON as {@code data:}; a
     * {@code :heartbeat} comment; {@code event:deleted} with {@code {"id":...}}; and
     * {@code event:reconnect}, which ends the stream as gRPC's UNAVAILABLE does. A block that is
     * none of these, or has no position, fails the test.
     */
    @Override
    public Watch watchGroup(WatchGroupRequest r) {
        String path = "/groups/" + r.getId() + "/events" + (r.getSince().isEmpty() ? "" : "?since=" + encode(r.getSince()));
        // The timeout bounds the wait for the response's head, not the stream.
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "text/event-stream").GET().build();
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            String type = response.headers().firstValue("Content-Type").orElse("");
            if (response.statusCode() >= 400) {
                String text;
                try (InputStream body = response.body()) {
                    text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
                }
                throw failure(response.statusCode(), type, retryAfter(response), text);
            }
            if (response.statusCode() != 200 || !type.startsWith("text/event-stream")) {
                response.body().close();
                throw new AssertionError("GET " + path + " answered " + response.statusCode() + " " + type
                        + ", expected 200 text/event-stream");
            }
            AtomicBoolean left = new AtomicBoolean();
            Watch watch = new Watch(() -> {
                left.set(true);
                try {
                    response.body().close();
                } catch (IOException e) {
                    // closed already
                }
            });
            Thread.ofVirtual().name("sse-" + path).start(() -> readEvents(response.body(), watch, left));
            return watch;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads the stream's blocks into {@code watch} until the response ends; a response cut short
     * (the connection broke before its last chunk) fails the test unless the client {@code left}.
     */
    private static void readEvents(InputStream body, Watch watch, AtomicBoolean left) {
        try {
            ServerSentEvents.read(body, block -> watch.received(message(block)));
            watch.ended();
        } catch (IOException broken) {
            if (left.get()) {
                watch.ended();
            } else {
                watch.failed(new AssertionError("the event stream broke instead of ending", broken));
            }
        } catch (Wire.Failure | AssertionError e) {
            watch.failed(e);
        }
    }

    /** The message an SSE block stands for; event:reconnect, which ends the stream, is thrown as gRPC's UNAVAILABLE. */
    private static WatchGroupResponse message(ServerSentEvents.Event block) {
        String id = block.id(), event = block.name(), data = block.data(), comment = block.comment();
        if (id == null) {
            throw new AssertionError("an SSE block without its position (id:): " + block);
        }
        WatchGroupResponse.Builder message = WatchGroupResponse.newBuilder().setPosition(id);
        if (event == null && data == null && "heartbeat".equals(comment)) {
            return message.setHeartbeat(Heartbeat.getDefaultInstance()).build();
        }
        if (data == null || comment != null) {
            throw new AssertionError("an SSE block that is no event of a watch: " + block);
        }
        try {
            switch (event == null ? "" : event) {
                case "group" -> {
                    Group.Builder group = Group.newBuilder();
                    PARSER.merge(data, group);
                    return message.setGroup(group).build();
                }
                case "deleted" -> {
                    GroupDeleted.Builder deleted = GroupDeleted.newBuilder();
                    PARSER.merge(data, deleted);
                    return message.setDeleted(deleted).build();
                }
                case "reconnect" -> throw new Failure("UNAVAILABLE", List.of(), null, null, null, data);
                default -> throw new AssertionError("an SSE event the stream does not send: " + block);
            }
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("an SSE data: that is not the proto's JSON: " + block, e);
        }
    }

    private <T extends Message> T get(String path, Message.Builder into) {
        return send("GET", path, null, 200, into);
    }

    @SuppressWarnings("unchecked")
    private <T extends Message> T send(String method, String path, Message body, int expectedStatus, Message.Builder into) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", encoding.mediaType);
        if (!method.equals("GET")) {
            request.header("Authorization", WRITER);
        }
        try {
            if (body != null) {
                request.header("Content-Type", encoding.mediaType).method(method, encoding == Encoding.JSON
                        ? HttpRequest.BodyPublishers.ofString(PRINTER.print(body))
                        : HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
            } else {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            String text = new String(response.body(), StandardCharsets.UTF_8);
            if (response.statusCode() >= 400) {
                throw failure(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                        retryAfter(response), text);
            }
            if (response.statusCode() != expectedStatus) {
                throw new AssertionError(method + " " + path + " answered " + response.statusCode()
                        + ", expected " + expectedStatus + ": " + text);
            }
            if (response.body().length > 0) {
                String type = response.headers().firstValue("Content-Type").orElse("");
                if (!type.startsWith(encoding.mediaType)) {
                    throw new AssertionError(method + " " + path + " answered " + type + ", asked for " + encoding.mediaType);
                }
                if (encoding == Encoding.JSON) {
                    PARSER.merge(text, into);
                } else {
                    into.mergeFrom(response.body());
                }
            }
            return (T) into.build();
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError(method + " " + path + ": the body is not the proto's " + encoding + " of "
                    + into.getDescriptorForType().getFullName(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Duration retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("Retry-After").map(s -> Duration.ofSeconds(Long.parseLong(s))).orElse(null);
    }

    /** The HTTP status each gRPC code the API reports is answered with (RestErrors' mapping). */
    private static final Map<String, Integer> HTTP_STATUS = Map.of(
            "INVALID_ARGUMENT", 400, "NOT_FOUND", 404, "ALREADY_EXISTS", 409, "FAILED_PRECONDITION", 409, "ABORTED", 409,
            "UNAVAILABLE", 503, "RESOURCE_EXHAUSTED", 429, "UNIMPLEMENTED", 501);

    /**
     * The problem+json answer as a failure. Every problem has the HTTP status of its code (in the
     * status line and in {@code status}), a title and a detail, and a description for each field
     * violation (checked for the codes of HTTP_STATUS); {@code resource} names the resource to blame.
     */
    private static Failure failure(int status, String type, Duration retryAfter, String body)
            throws InvalidProtocolBufferException {
        if (!type.startsWith("application/problem+json")) {
            throw new AssertionError("error " + status + " is not problem+json but '" + type + "': " + body);
        }
        Struct.Builder problem = Struct.newBuilder();
        PARSER.merge(body, problem);
        List<String> fields = new ArrayList<>();
        Value violations = problem.getFieldsOrDefault("fieldViolations", Value.getDefaultInstance());
        for (Value violation : violations.getListValue().getValuesList()) {
            Struct fieldViolation = violation.getStructValue();
            fields.add(fieldViolation.getFieldsOrThrow("field").getStringValue());
            problemCheck(!fieldViolation.getFieldsOrDefault("description", Value.getDefaultInstance()).getStringValue().isBlank(),
                    "a field violation without description", body);
        }
        String code = problem.getFieldsOrThrow("code").getStringValue();
        if (HTTP_STATUS.containsKey(code)) {
            problemCheck(HTTP_STATUS.get(code) == status, code + " answered with HTTP " + status, body);
            problemCheck(problem.getFieldsOrDefault("status", Value.getDefaultInstance()).getNumberValue() == status,
                    "status member is not " + status, body);
            problemCheck(!problem.getFieldsOrDefault("title", Value.getDefaultInstance()).getStringValue().isBlank(), "no title", body);
            problemCheck(!problem.getFieldsOrDefault("detail", Value.getDefaultInstance()).getStringValue().isBlank(), "no detail", body);
        }
        Struct resource = problem.getFieldsOrDefault("resource", Value.getDefaultInstance()).getStructValue();
        return new Failure(code, fields, resource.getFieldsCount() == 0 ? null : resource.getFieldsOrThrow("type").getStringValue(),
                resource.getFieldsCount() == 0 ? null : resource.getFieldsOrThrow("name").getStringValue(), retryAfter, body);
    }

    private static void problemCheck(boolean condition, String what, String body) {
        if (!condition) {
            throw new AssertionError("problem+json malformed: " + what + ": " + body);
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
