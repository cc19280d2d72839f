package dev.tandem.system;

import com.google.protobuf.Empty;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
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

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * StudyGroupService (and the bench's hello-world, HelloService) as a client sees it, whichever wire carries it. The same request object goes
 * through both implementations, so a test can ask both and compare the answers message by message.
 */
interface Wire {

    String name();

    Group getGroup(GetGroupRequest request);

    ListGroupsResponse listGroups(ListGroupsRequest request);

    Group createGroup(CreateGroupRequest request);

    Group updateGroup(UpdateGroupRequest request);

    Empty deleteGroup(DeleteGroupRequest request);

    Membership joinGroup(JoinGroupRequest request);

    Empty leaveGroup(LeaveGroupRequest request);

    Rating rateGroup(RateGroupRequest request);

    StudySession scheduleSession(ScheduleSessionRequest request);

    Leaderboard getLeaderboard(GetLeaderboardRequest request);

    User createUser(CreateUserRequest request);

    User getUser(GetUserRequest request);

    HelloResponse hello(HelloRequest request);

    /**
     * WatchGroup, without a token (as curl and grpcurl watch in the README): the stream of the
     * group's events, each read back as the WatchGroupResponse it stands for. A refusal before the
     * stream starts is a {@link Failure}, thrown here or by the first {@link Watch#next} (gRPC: the
     * status may be the call's first answer). Close the watch when done: it is the client leaving.
     */
    Watch watchGroup(WatchGroupRequest request);

    /**
     * One open WatchGroup stream, filled by the wire's reader as its messages arrive: each message,
     * then the end (REST: the response ends; gRPC: status OK), or the {@link Failure} (or the
     * AssertionError of a message the wire should not have sent) that ended it.
     */
    final class Watch implements AutoCloseable {
        private static final Object END = new Object();

        private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        private final Runnable cancel;
        private boolean ended;

        /** {@code cancel}: how the client leaves (closes the response, cancels the call). */
        Watch(Runnable cancel) {
            this.cancel = cancel;
        }

        void received(WatchGroupResponse message) {
            received.add(message);
        }

        /** The stream ended with {@code failure} (a Failure, or an AssertionError about what the wire sent). */
        void failed(Throwable failure) {
            received.add(failure);
        }

        void ended() {
            received.add(END);
        }

        /**
         * The next message within {@code bound}; null when the stream ended instead. Throws the
         * failure that ended it, and fails the test when nothing comes within the bound.
         */
        WatchGroupResponse next(Duration bound) {
            if (ended) {
                throw new AssertionError("read past the end of the stream");
            }
            Object item;
            try {
                item = received.poll(bound.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (item == null) {
                throw new AssertionError("no message within " + bound);
            }
            if (item == END) {
                ended = true;
                return null;
            }
            if (item instanceof Throwable failure) {
                ended = true;
                if (failure instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw failure instanceof Error error ? error : new AssertionError("the stream broke", failure);
            }
            return (WatchGroupResponse) item;
        }

        /** The next message that is {@code wanted} within {@code bound}, skipping others; fails at the end. */
        WatchGroupResponse next(Predicate<WatchGroupResponse> wanted, Duration bound) {
            long until = System.nanoTime() + bound.toNanos();
            while (true) {
                WatchGroupResponse message = next(Duration.ofNanos(Math.max(0, until - System.nanoTime())));
                if (message == null) {
                    throw new AssertionError("the stream ended before the message wanted");
                }
                if (wanted.test(message)) {
                    return message;
                }
            }
        }

        @Override
        public void close() {
            cancel.run();
        }
    }

    /**
     * A failed call, reduced to what both wires must agree on: the status name, the fields named and
     * the resource to blame (google.rpc.ResourceInfo's type and name; REST problem {@code resource}),
     * null where the service names none. Also when the client is told to retry (REST Retry-After,
     * gRPC RetryInfo; null if not), which the comparison leaves out: it is a property of the refusal,
     * checked by the tests that expect one.
     */
    final class Failure extends RuntimeException {
        final String code;
        final List<String> fields;
        final String resourceType;
        final String resourceName;
        final Duration retryAfter;

        Failure(String code, List<String> fields, String resourceType, String resourceName, Duration retryAfter,
                String detail) {
            super(code + " " + fields + " " + resourceType + "/" + resourceName + ": " + detail);
            this.code = code;
            this.fields = fields.stream().sorted().toList();
            this.resourceType = resourceType;
            this.resourceName = resourceName;
            this.retryAfter = retryAfter;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Failure other && other.code.equals(code) && other.fields.equals(fields)
                    && Objects.equals(other.resourceType, resourceType) && Objects.equals(other.resourceName, resourceName);
        }

        @Override
        public int hashCode() {
            return Objects.hash(code, fields, resourceType, resourceName);
        }

        @Override
        public String toString() {
            return code + " " + fields + (resourceType == null ? "" : " " + resourceType + " " + resourceName);
        }
    }
}
