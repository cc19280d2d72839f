package dev.tandem.grpc.server;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.ServerProbes;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** What operators and tools see of the server: reflection, health, metrics, where and how it runs. */
class ServerGrpcTest extends GrpcIntegrationTest {

    @LocalServerPort int managementPort;
    @Autowired ServerProbes probes;

    @Test
    void reflectionListsTheStudyGroupService() throws Exception {
        CompletableFuture<List<ServerReflectionResponse>> done = new CompletableFuture<>();
        List<ServerReflectionResponse> responses = new ArrayList<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse response) {
                        responses.add(response);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(responses);
                    }
                });
        requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        requests.onCompleted();

        List<String> services = done.get(deadlineSeconds(), TimeUnit.SECONDS).stream()
                .flatMap(r -> r.getListServicesResponse().getServiceList().stream())
                .map(ServiceResponse::getName)
                .toList();
        assertThat(services).contains(StudyGroupServiceGrpc.SERVICE_NAME, "grpc.health.v1.Health");
        assertThat(StudyGroupServiceGrpc.SERVICE_NAME).isEqualTo("tandem.v1.StudyGroupService");
    }

    @Test
    void healthCheckSaysServing() {
        HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("").build());
        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    @Test
    void actuatorHealthOnTheManagementPortIsUp() throws Exception {
        HttpResponse<String> response = http("/actuator/health");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"");
    }

    @Test
    void prometheusMetricsIncludeTheGrpcCalls() throws Exception {
        api().getGroup(GetGroupRequest.newBuilder().setId(1).build());

        HttpResponse<String> response = http("/actuator/prometheus");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("grpc_server").contains("GetGroup");
    }

    @Test
    void handlersRunOnVirtualThreads() {
        api().getGroup(GetGroupRequest.newBuilder().setId(1).build());
        assertThat(probes.lastHandlerThread()).isNotNull();
        assertThat(probes.lastHandlerThread().isVirtual()).as("handler thread %s", probes.lastHandlerThread()).isTrue();
    }

    @Test
    void grpcServerListensOnLoopbackOnlyByDefault() {
        assertThat(probes.listenAddresses()).isNotEmpty().allSatisfy(address -> {
            assertThat(address).isInstanceOf(InetSocketAddress.class);
            assertThat(((InetSocketAddress) address).getAddress().isLoopbackAddress())
                    .as("listen address %s", address).isTrue();
        });
    }

    private HttpResponse<String> http(String path) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(deadlineSeconds())).build()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                            .timeout(Duration.ofSeconds(deadlineSeconds())).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }
}
