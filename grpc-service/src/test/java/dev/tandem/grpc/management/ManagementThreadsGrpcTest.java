package dev.tandem.grpc.management;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.testsupport.HeldCarriers;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The management port (probes, metrics) is served while the calls' virtual threads wait for a
 * carrier, as on an instance whose CPU the calls have saturated (#17: health and metrics are never
 * starved by request load). Failed before: its Tomcat ran on virtual threads too, and with every
 * carrier held no probe was answered.
 */
class ManagementThreadsGrpcTest extends GrpcIntegrationTest {

    /** Not a speed: the bound after which an unanswered probe fails the test instead of hanging it. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    @LocalServerPort int managementPort;

    @Test
    void probesAndMetricsAreAnsweredWhileEveryCarrierIsHeld() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        try (HeldCarriers ignored = HeldCarriers.hold()) {
            // The hold starves what runs on virtual threads: a call is never run while it lasts.
            StatusRuntimeException starved = catchThrowableOfType(StatusRuntimeException.class,
                    () -> api().withDeadlineAfter(2, TimeUnit.SECONDS).getGroup(GetGroupRequest.newBuilder().setId(2).build()));
            assertThat(starved.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);

            for (String path : List.of("/actuator/health/liveness", "/actuator/health/readiness", "/actuator/prometheus")) {
                HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + managementPort + path)).timeout(BOUND).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as(path).isEqualTo(200);
            }
        }
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId()).as("served once the hold ends")
                .isEqualTo(2);
    }
}
