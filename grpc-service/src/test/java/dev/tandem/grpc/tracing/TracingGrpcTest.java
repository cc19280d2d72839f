package dev.tandem.grpc.tracing;

import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.SeededRows;
import dev.tandem.testsupport.TracedReads;
import dev.tandem.testsupport.UseTestDatabase;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.concurrent.TimeUnit;

/**
 * Tracing on the gRPC wire: the service runs with tracing on, exporting to a receiver this test
 * runs, and a GetGroup carrying a W3C traceparent metadata entry gives the span tree
 * {@link TracedReads} expects (the same scenario as the REST wire's).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.grpc.server.port=0",
        "tandem.tracing.enabled=true",
        "management.opentelemetry.tracing.export.schedule-delay=100ms",
        // A log line inside the cold read (its SQL), to show that log lines carry the trace id.
        "logging.level.org.springframework.jdbc.core.JdbcTemplate=debug"})
@UseTestDatabase
@ExtendWith(OutputCaptureExtension.class)
class TracingGrpcTest {

    private static final Metadata.Key<String> TRACEPARENT = Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);

    @DynamicPropertySource
    static void exportToReceiver(DynamicPropertyRegistry properties) {
        TracedReads.exportToReceiver(properties);
    }

    @Autowired GrpcServerLifecycle grpcServer;
    @Autowired SeedData seed;
    @Autowired JdbcClient jdbc;

    @Test
    void aGetGroupIsOneTraceFromTheHandlerToTheSql(CapturedOutput output) throws InterruptedException {
        seed.reset(1);
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", grpcServer.getPort()).usePlaintext().build();
        try {
            TracedReads.coldThenWarm((id, traceparent) -> {
                Metadata headers = new Metadata();
                headers.put(TRACEPARENT, traceparent);
                StudyGroupServiceGrpc.newBlockingStub(channel)
                        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                        .withDeadlineAfter(60, TimeUnit.SECONDS)
                        .getGroup(GetGroupRequest.newBuilder().setId(id).build());
            }, "tandem.v1.StudyGroupService/GetGroup", SeededRows.groupWithRoom(jdbc), output);
        } finally {
            channel.shutdownNow().awaitTermination(60, TimeUnit.SECONDS);
        }
    }
}
