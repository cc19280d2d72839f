package dev.tandem.grpc.admission;

import com.google.protobuf.FieldMask;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.testsupport.RowLock;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.TestPropertySource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Admission control on gRPC with a limit of one call in flight: while an update waits for a row
 * lock held by the test, another call is refused at once with UNAVAILABLE, RetryInfo and ErrorInfo,
 * health checks are still answered, and once the update is through calls are admitted again.
 */
@TestPropertySource(properties = {"tandem.admission.enabled=true", "tandem.admission.algorithm=fixed", "tandem.admission.initial-limit=1",
        "tandem.admission.min-limit=1", "tandem.admission.max-limit=1", "tandem.admission.retry-after=3s"})
class AdmissionGrpcTest extends GrpcIntegrationTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @Value("${spring.datasource.url}") String url;
    @Value("${spring.datasource.username}") String user;
    @Value("${spring.datasource.password}") String password;

    @Test
    void aCallOverTheLimitIsRefusedWithRetryInfoWhileHealthIsStillAnswered() throws Exception {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        CompletableFuture<Group> update;
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            update = CompletableFuture.supplyAsync(() -> api().updateGroup(UpdateGroupRequest.newBuilder()
                    .setId(1).setGroup(Group.newBuilder().setName("Renamed once admitted"))
                    .setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                    .setExpectedVersion(version).build()));
            assertThat(lock.awaitStatementOnStudyGroups(BOUND)).as("the update holds the only permit").isTrue();

            StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                    () -> api().getGroup(GetGroupRequest.newBuilder().setId(2).build()));

            assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(refused.getStatus().getDescription()).contains("limit of 1 requests in flight");
            com.google.rpc.Status details = StatusProto.fromThrowable(refused);
            RetryInfo retry = details.getDetailsList().stream().filter(d -> d.is(RetryInfo.class))
                    .findFirst().orElseThrow().unpack(RetryInfo.class);
            assertThat(retry.getRetryDelay().getSeconds()).isEqualTo(3);
            ErrorInfo info = details.getDetailsList().stream().filter(d -> d.is(ErrorInfo.class))
                    .findFirst().orElseThrow().unpack(ErrorInfo.class);
            assertThat(info.getReason()).isEqualTo("UNAVAILABLE");
            assertThat(info.getMetadataMap()).containsEntry("limit", "1");

            HealthCheckResponse health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(BOUND.toSeconds(), TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance());
            assertThat(health.getStatus()).as("health is never limited").isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
            assertThat(update).as("the admitted call still waits for the lock").isNotDone();
        }
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS).getName()).isEqualTo("Renamed once admitted");
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId())
                .as("admitted again once the permit is back").isEqualTo(2);
    }
}
