package dev.tandem.grpc.server;

import com.google.protobuf.DescriptorProtos;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.ServerProbes;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.testsupport.Await;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.grpc.server.GrpcServerFactory;
import org.springframework.grpc.server.NettyGrpcServerFactory;

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
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What operators and tools see of the server: reflection, health, metrics, where and how it runs. */
class ServerGrpcTest extends GrpcIntegrationTest {

    @LocalServerPort int managementPort;
    @Autowired ServerProbes probes;
    @Autowired MeterRegistry registry;
    @Autowired GrpcServerFactory serverFactory;

    @Test
    void reflectionListsTheTandemServices() throws Exception {
        List<String> services = reflect(ServerReflectionRequest.newBuilder().setListServices("").build())
                .getListServicesResponse().getServiceList().stream()
                .map(ServiceResponse::getName)
                .toList();
        assertThat(services).contains("tandem.v1.StudyGroupService", "tandem.v1.HelloService", "grpc.health.v1.Health");
    }

    @Test
    void reflectionDescribesTheServicesSoThatToolsCanCallThem() throws Exception {
        assertDescribed("tandem.v1.StudyGroupService", "GetGroup", "ListGroups", "UpdateGroup", "CreateUser");
        assertDescribed("tandem.v1.HelloService", "Hello");
    }

    @Test
    void reflectionServesTheErrorDetailTypesSoThatToolsDecodeThem() throws Exception {
        // A refused call's google.rpc.Status carries these in Any; grpcurl asks reflection for the
        // file of each type it finds there, and without it prints raw bytes ("... is not recognized").
        for (String type : List.of("ErrorInfo", "BadRequest", "ResourceInfo", "RetryInfo")) {
            ServerReflectionResponse response = reflect(ServerReflectionRequest.newBuilder()
                    .setFileContainingSymbol("google.rpc." + type).build());
            assertThat(response.hasErrorResponse()).as("%s: %s", type, response.getErrorResponse()).isFalse();
            List<DescriptorProtos.FileDescriptorProto> files = new ArrayList<>();
            for (var bytes : response.getFileDescriptorResponse().getFileDescriptorProtoList()) {
                files.add(DescriptorProtos.FileDescriptorProto.parseFrom(bytes));
            }
            assertThat(files).as(type).anySatisfy(file -> {
                assertThat(file.getPackage()).isEqualTo("google.rpc");
                assertThat(file.getMessageTypeList()).extracting(DescriptorProtos.DescriptorProto::getName).contains(type);
            });
        }
    }

    private void assertDescribed(String service, String... methods) throws Exception {
        // What grpcurl asks before it can encode a request: the file that defines the symbol.
        ServerReflectionResponse response = reflect(ServerReflectionRequest.newBuilder()
                .setFileContainingSymbol(service).build());

        List<DescriptorProtos.FileDescriptorProto> files = new ArrayList<>();
        for (var bytes : response.getFileDescriptorResponse().getFileDescriptorProtoList()) {
            files.add(DescriptorProtos.FileDescriptorProto.parseFrom(bytes));
        }
        assertThat(files).as(service).anySatisfy(file -> {
            assertThat(file.getPackage()).isEqualTo("tandem.v1");
            assertThat(file.getServiceList()).singleElement().satisfies(described -> {
                assertThat("tandem.v1." + described.getName()).isEqualTo(service);
                assertThat(described.getMethodList()).extracting(DescriptorProtos.MethodDescriptorProto::getName)
                        .contains(methods);
            });
        });
    }

    /** One request on the bidirectional reflection stream, and its one response. */
    private ServerReflectionResponse reflect(ServerReflectionRequest request) throws Exception {
        CompletableFuture<ServerReflectionResponse> done = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse response) {
                        done.complete(response);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.completeExceptionally(new AssertionError("stream ended without a response"));
                    }
                });
        requests.onNext(request);
        requests.onCompleted();
        ServerReflectionResponse response = done.get(deadlineSeconds(), TimeUnit.SECONDS);
        assertThat(response.hasErrorResponse()).as("reflection error %s", response.getErrorResponse()).isFalse();
        return response;
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

    /**
     * The status the client gets is the status counted: a call the service fails (its exception
     * mapped by GrpcErrors) is in grpc.server under its code, as a call an interceptor refuses is.
     * Failed before: the exception handler ran outside the observation, which saw the exception
     * thrown and no status, and counted every such call as UNKNOWN.
     */
    @Test
    void aCallTheServiceFailsIsCountedWithTheStatusItsClientGets() {
        Supplier<Long> notFound = () -> (long) registry.find("grpc.server").tag("rpc.method", "GetGroup")
                .tag("grpc.status_code", "NOT_FOUND").timers().stream().mapToLong(Timer::count).sum();
        long before = notFound.get();

        assertThatThrownBy(() -> api().getGroup(GetGroupRequest.newBuilder().setId(987_654_321).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));

        Await.until("the failed call counted", Duration.ofSeconds(5), () -> notFound.get() == before + 1);
        assertThat(registry.find("grpc.server").tag("grpc.status_code", "UNKNOWN").timers()).isEmpty();
    }

    @Test
    void handlersRunOnVirtualThreads() {
        api().getGroup(GetGroupRequest.newBuilder().setId(1).build());
        assertThat(probes.lastHandlerThread()).isNotNull();
        assertThat(probes.lastHandlerThread().isVirtual()).as("handler thread %s", probes.lastHandlerThread()).isTrue();
    }

    @Test
    void theTestsRunTheServerTheJarRuns() {
        // Boot builds its gRPC server from grpc-netty-shaded whenever that is on the classpath and
        // from grpc-netty otherwise; the jar ships grpc-netty only, so a test classpath with the
        // shaded transport would test a server production never runs.
        assertThat(serverFactory).isExactlyInstanceOf(NettyGrpcServerFactory.class);
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
