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

import java.time.Duration;
import java.util.List;
import java.util.Objects;

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
