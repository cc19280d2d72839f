package dev.tandem.grpc.server;

import dev.tandem.auth.DevTokens;
import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.ServerProbes;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.TlsExtraPort;
import dev.tandem.testsupport.UseTestDatabase;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * tandem.tls.extra-port: the gRPC port stays plaintext and a second server in the same process
 * serves the same services over TLS (what the bench's TLS cells use), built like the main one: the
 * same global interceptors, virtual-thread executor and inbound limits.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "spring.grpc.server.port=0")
@UseTestDatabase
@Import(ServerProbes.class)
class TlsExtraPortGrpcTest {

    /** Not a timing assertion: only a bound so that a hung call fails the test instead of the build. */
    private static final long BOUND_SECONDS = 60;
    private static final TlsExtraPort TLS = TlsExtraPort.pick();

    @DynamicPropertySource
    static void tlsOnTheExtraPort(DynamicPropertyRegistry registry) {
        TLS.register(registry);
    }

    @Autowired SeedData seed;
    @Autowired GrpcServerLifecycle mainServer;
    @Autowired ServerProbes probes;

    private ManagedChannel plain;
    private ManagedChannel tls;

    @BeforeEach
    void resetDataAndConnect() throws Exception {
        seed.reset(1);
        plain = Grpc.newChannelBuilderForAddress("127.0.0.1", mainServer.getPort(), InsecureChannelCredentials.create())
                .build();
        tls = Grpc.newChannelBuilderForAddress("127.0.0.1", TLS.port(), TlsChannelCredentials.newBuilder()
                .trustManager(TLS.certificate().certificate().toFile()).build()).build();
    }

    @AfterEach
    void disconnect() throws InterruptedException {
        plain.shutdownNow().awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS);
        tls.shutdownNow().awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void bothPortsAnswerTheSameCallThePlainOneInTheClearTheExtraOneOverTls() {
        var request = GetGroupRequest.newBuilder().setId(1).build();
        var overPlain = StudyGroupServiceGrpc.newBlockingStub(plain).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .getGroup(request);
        var overTls = StudyGroupServiceGrpc.newBlockingStub(tls).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .getGroup(request);
        assertThat(overTls).isEqualTo(overPlain);

        HealthCheckResponse health = HealthGrpc.newBlockingStub(tls).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance());
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    @Test
    void theExtraPortRefusesPlaintext() {
        ManagedChannel plaintextToTls = Grpc.newChannelBuilderForAddress("127.0.0.1", TLS.port(),
                InsecureChannelCredentials.create()).build();
        try {
            // refused by the transport, so no ErrorInfo: only the code
            assertThat(GrpcFailure.of(() -> HelloServiceGrpc.newBlockingStub(plaintextToTls)
                    .withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS).hello(HelloRequest.getDefaultInstance()))
                    .code()).isEqualTo(Status.Code.UNAVAILABLE);
        } finally {
            plaintextToTls.shutdownNow();
        }
    }

    @Test
    void theExtraServerRunsCallsLikeTheMainOne() {
        var hello = HelloServiceGrpc.newBlockingStub(tls).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(hello.hello(HelloRequest.getDefaultInstance()).getMessage()).isEqualTo("hello");
        // the global interceptors (ServerProbes' recorder is one) and the virtual-thread executor
        assertThat(probes.lastHandlerThread()).isNotNull();
        assertThat(probes.lastHandlerThread().isVirtual()).as("handler thread %s", probes.lastHandlerThread()).isTrue();

        // the service's own interceptors: metadata over tandem.limits.max-header-bytes
        Metadata filler = new Metadata();
        filler.put(Metadata.Key.of("x-filler", Metadata.ASCII_STRING_MARSHALLER), "a".repeat(16 * 1024));
        GrpcFailure.of(() -> hello.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(filler))
                .hello(HelloRequest.getDefaultInstance())).assertCode(Status.Code.RESOURCE_EXHAUSTED);

        // spring.grpc.server.inbound.message.max-size (64KB): grpc-java refuses the message itself,
        // before any interceptor (so without an ErrorInfo)
        Metadata writer = new Metadata();
        writer.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + DevTokens.devWriter());
        var tooLarge = CreateUserRequest.newBuilder().setName("n".repeat(100 * 1024)).setEmail("a@example.test").build();
        assertThat(GrpcFailure.of(() -> StudyGroupServiceGrpc.newBlockingStub(tls)
                .withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(writer))
                .createUser(tooLarge)).code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
}
