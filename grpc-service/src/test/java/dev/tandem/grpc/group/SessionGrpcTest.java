package dev.tandem.grpc.group;

import com.google.protobuf.Timestamp;
import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.ScheduleSessionRequest;
import dev.tandem.proto.v1.StudySession;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** ScheduleSession over the wire. */
class SessionGrpcTest extends GrpcIntegrationTest {

    /** Before the seeded sessions (which start in 2030), so it becomes the group's next session. */
    private static final Instant START = Instant.now().plus(1, ChronoUnit.DAYS).plusMillis(123);

    @Test
    void scheduledSessionIsStoredAndBecomesTheGroupsNextSession() {
        StudySession session = api().scheduleSession(valid().build());

        assertThat(session.getId()).isPositive();
        assertThat(session.getGroupId()).isEqualTo(1);
        assertThat(session.getTopic()).isEqualTo("Dynamic programming");
        assertThat(session.getDurationMinutes()).isEqualTo(90);
        assertThat(session.getLocation()).isEqualTo("Library room 1");
        // The domain keeps whole seconds; the answer is what was stored.
        assertThat(session.getStartTime()).isEqualTo(timestamp(START.truncatedTo(ChronoUnit.SECONDS)));

        Group group = api().getGroup(GetGroupRequest.newBuilder().setId(1).build());
        assertThat(group.getNextSessions(0)).isEqualTo(session);
    }

    @ParameterizedTest
    @ValueSource(ints = {15, 480})
    void durationBoundsAreAccepted(int minutes) {
        assertThat(api().scheduleSession(valid().setDurationMinutes(minutes).build()).getDurationMinutes())
                .isEqualTo(minutes);
    }

    @Test
    void locationMayBeOmitted() {
        assertThat(api().scheduleSession(valid().clearLocation().build()).getLocation()).isEmpty();
    }

    static Stream<Arguments> invalidSessions() {
        return Stream.of(
                invalid("start_time", ScheduleSessionRequest.Builder::clearStartTime),
                invalid("start_time", r -> r.setStartTime(timestamp(Instant.now().minus(1, ChronoUnit.HOURS)))),
                invalid("start_time", r -> r.setStartTime(Timestamp.newBuilder().setSeconds(START.getEpochSecond()).setNanos(-1))),
                invalid("start_time", r -> r.setStartTime(Timestamp.newBuilder().setSeconds(Long.MAX_VALUE))),
                invalid("duration_minutes", r -> r.setDurationMinutes(14)),
                invalid("duration_minutes", r -> r.setDurationMinutes(481)),
                invalid("duration_minutes", r -> r.setDurationMinutes(0)),
                invalid("topic", r -> r.setTopic("")),
                invalid("topic", r -> r.setTopic("  ")),
                invalid("topic", r -> r.setTopic("t".repeat(201))),
                invalid("location", r -> r.setLocation("l".repeat(201))));
    }

    private static Arguments invalid(String field, UnaryOperator<ScheduleSessionRequest.Builder> change) {
        return arguments(field, change.apply(valid()).build());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("invalidSessions")
    void invalidFieldIsNamedAndNothingIsWritten(String field, ScheduleSessionRequest request) {
        long before = count("study_sessions");
        GrpcFailure.of(() -> api().scheduleSession(request)).assertInvalid(field);
        assertThat(count("study_sessions")).isEqualTo(before);
    }

    @Test
    void everyInvalidFieldIsNamedAtOnce() {
        ScheduleSessionRequest request = ScheduleSessionRequest.newBuilder().setGroupId(1).build();
        GrpcFailure.of(() -> api().scheduleSession(request)).assertInvalid("topic", "start_time", "duration_minutes");
    }

    @Test
    void schedulingForAnUnknownGroupIsNotFound() {
        long before = count("study_sessions");
        GrpcFailure.of(() -> api().scheduleSession(valid().setGroupId(999_999).build()))
                .assertCode(Status.Code.NOT_FOUND).assertResource("group", "999999");
        assertThat(count("study_sessions")).isEqualTo(before);
    }

    private static ScheduleSessionRequest.Builder valid() {
        return ScheduleSessionRequest.newBuilder().setGroupId(1).setTopic("Dynamic programming")
                .setStartTime(timestamp(START)).setDurationMinutes(90).setLocation("Library room 1");
    }

    private static Timestamp timestamp(Instant instant) {
        return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
    }
}
