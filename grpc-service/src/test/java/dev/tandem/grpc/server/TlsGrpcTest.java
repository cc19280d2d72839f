package dev.tandem.grpc.server;

import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.TestCertificate;
import dev.tandem.testsupport.UseTestDatabase;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.net.ssl.SSLSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gRPC service with TLS on (tandem.tls.*), a certificate made by scripts/tls-cert.sh, and real
 * handshakes from grpc-java clients (JDK TLS; Go's TLS meets it in k6's TLS cell of the smoke bench that
 * make test runs): HTTP/2 over TLS (ALPN h2) on the gRPC port, with
 * reflection and health; a plaintext channel turned away with UNAVAILABLE; the management port
 * still plain HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.grpc.server.port=0", "tandem.tls.enabled=true"})
@UseTestDatabase
class TlsGrpcTest {

    /** Not a timing assertion: only a bound so that a hung call fails the test instead of the build. */
    private static final long BOUND_SECONDS = 60;
    private static final TestCertificate CERTIFICATE = TestCertificate.generate();

    @DynamicPropertySource
    static void certificate(DynamicPropertyRegistry registry) {
        CERTIFICATE.registerAsTandemTls(registry);
    }

    @Autowired SeedData seed;
    @Autowired GrpcServerLifecycle grpcServer;
    @LocalServerPort int managementPort;

    private ManagedChannel tls;

    @BeforeEach
    void resetDataAndConnect() throws Exception {
        seed.reset(1);
        ChannelCredentials trustTheCertificate = TlsChannelCredentials.newBuilder()
                .trustManager(CERTIFICATE.certificate().toFile()).build();
        // 127.0.0.1 as the authority: the handshake checks the certificate's IP SAN
        tls = Grpc.newChannelBuilderForAddress("127.0.0.1", grpcServer.getPort(), trustTheCertificate).build();
    }

    @AfterEach
    void disconnect() throws InterruptedException {
        tls.shutdownNow().awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void getGroupAnswersOverTls() {
        var group = StudyGroupServiceGrpc.newBlockingStub(tls).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .getGroup(GetGroupRequest.newBuilder().setId(1).build());
        assertThat(group.getId()).isEqualTo(1);
    }

    @Test
    void theHandshakeNegotiatesHttp2ThroughAlpn() throws Exception {
        try (SSLSocket socket = (SSLSocket) CERTIFICATE.clientContext().getSocketFactory()
                .createSocket("127.0.0.1", grpcServer.getPort())) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            var parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"h2", "http/1.1"});
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            assertThat(socket.getApplicationProtocol()).isEqualTo("h2");
            assertThat(socket.getSession().getProtocol()).startsWith("TLSv1.");
        }
    }

    @Test
    void healthAndReflectionWorkOverTls() throws Exception {
        HealthCheckResponse health = HealthGrpc.newBlockingStub(tls).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("").build());
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

        CompletableFuture<ServerReflectionResponse> done = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(tls)
                .withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override public void onNext(ServerReflectionResponse response) { done.complete(response); }
                    @Override public void onError(Throwable t) { done.completeExceptionally(t); }
                    @Override public void onCompleted() { done.completeExceptionally(new AssertionError("no response")); }
                });
        requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        requests.onCompleted();
        List<String> services = done.get(BOUND_SECONDS, TimeUnit.SECONDS).getListServicesResponse().getServiceList()
                .stream().map(ServiceResponse::getName).toList();
        assertThat(services).contains("tandem.v1.StudyGroupService", "grpc.health.v1.Health");
    }

    @Test
    void aPlaintextChannelToTheTlsPortFailsWithUnavailableAndTheServerKeepsServing() throws Exception {
        ManagedChannel plaintext = Grpc.newChannelBuilderForAddress("127.0.0.1", grpcServer.getPort(),
                InsecureChannelCredentials.create()).build();
        try {
            assertThatThrownBy(() -> StudyGroupServiceGrpc.newBlockingStub(plaintext)
                    .withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                    .getGroup(GetGroupRequest.newBuilder().setId(1).build()))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        } finally {
            plaintext.shutdownNow().awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS);
        }

        var group = StudyGroupServiceGrpc.newBlockingStub(tls).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .getGroup(GetGroupRequest.newBuilder().setId(2).build());
        assertThat(group.getId()).isEqualTo(2);
    }

    @Test
    void theManagementPortStaysPlainHttp() throws Exception {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(BOUND_SECONDS)).build()) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + managementPort + "/actuator/health"))
                    .timeout(Duration.ofSeconds(BOUND_SECONDS)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains("\"status\":\"UP\"");
        }
    }
}
