package dev.tandem.grpc.hello;

import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.ServerProbes;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloServiceGrpc;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * tandem.v1.HelloService/Hello, the bench's hello-world on the gRPC wire: the constant answer,
 * without a token, and through the same server machinery as every other call (the global
 * interceptors, the virtual-thread executor, the server's metrics), so that it measures the
 * ceiling GetGroup runs under.
 */
class HelloGrpcTest extends GrpcIntegrationTest {

    @LocalServerPort int managementPort;
    @Autowired ServerProbes probes;

    private HelloServiceGrpc.HelloServiceBlockingStub hello() {
        return HelloServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void helloAnswersHelloWithoutAToken() {
        assertThat(hello().hello(HelloRequest.getDefaultInstance()).getMessage()).isEqualTo("hello");
    }

    @Test
    void helloRunsOnAVirtualThreadBehindTheGlobalInterceptors() {
        hello().hello(HelloRequest.getDefaultInstance());
        // ServerProbes' recorder is a global interceptor like the service's own.
        assertThat(probes.lastHandlerThread()).isNotNull();
        assertThat(probes.lastHandlerThread().isVirtual()).as("handler thread %s", probes.lastHandlerThread()).isTrue();

        // MetadataLimitInterceptor refuses it like any other call.
        Metadata filler = new Metadata();
        filler.put(Metadata.Key.of("x-filler", Metadata.ASCII_STRING_MARSHALLER), "a".repeat(16 * 1024));
        GrpcFailure.of(() -> hello().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(filler))
                .hello(HelloRequest.getDefaultInstance())).assertCode(Status.Code.RESOURCE_EXHAUSTED);
    }

    @Test
    void helloIsCountedInTheServersMetrics() throws Exception {
        hello().hello(HelloRequest.getDefaultInstance());

        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + managementPort + "/actuator/prometheus"))
                            .timeout(Duration.ofSeconds(deadlineSeconds())).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body().lines().filter(line -> line.startsWith("grpc_server"))
                    .filter(line -> line.contains("tandem.v1.HelloService"))).isNotEmpty();
        }
    }
}
