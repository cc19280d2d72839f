package dev.tandem.grpc;

import java.io.UncheckedIOException;
import java.io.InputStream;
import java.io.IOException;
import java.io.ByteArrayInputStream;
import io.grpc.MethodDescriptor;
import dev.tandem.auth.DevTokens;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.SeedResets;
import dev.tandem.testsupport.UseTestDatabase;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.util.concurrent.TimeUnit;

/**
 * The whole service as it runs: the real Netty gRPC server on a free port, the management web
 * server on another, the real MariaDB (database {@code tandem_test_grpc}) reset to seed scale 1
 * before every test (unless the test before it proved it changed nothing: {@link SeedResets}),
 * and a real plaintext channel from the client side. Every subclass has the
 * same configuration, so they all share one application context.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        // Watches: heartbeats often, limits low enough to reach, one client's below the instance's, and a
        // stall timeout a test can wait for (WatchGroupGrpcTest).
        properties = {"spring.grpc.server.port=0", "tandem.watch.heartbeat=500ms", "tandem.watch.max-watchers=4",
                "tandem.watch.max-watchers-per-client=3", "tandem.watch.stall-timeout=3s"})
@UseTestDatabase
@Import(ServerProbes.class)
public abstract class GrpcIntegrationTest {

    /** Not a timing assertion: only a bound so that a hung call fails the test instead of the build. */
    private static final long CALL_DEADLINE_SECONDS = 60;

    @Autowired protected SeedData seed;
    @Autowired protected JdbcClient jdbc;
    @Autowired private GrpcServerLifecycle grpcServer;

    protected ManagedChannel channel;

    @BeforeEach
    void resetDataAndConnect() {
        SeedResets.beforeEach(seed, getClass());
        channel = ManagedChannelBuilder.forAddress("127.0.0.1", grpcServer.getPort()).usePlaintext().build();
    }

    @AfterEach
    void disconnect() throws InterruptedException {
        channel.shutdownNow().awaitTermination(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * A blocking stub whose deadline starts now, for one call or a short sequence of calls. It sends
     * a writer's bearer token (writes need one, reads ignore it).
     */
    protected StudyGroupServiceGrpc.StudyGroupServiceBlockingStub api() {
        return anonymousApi().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(authorization("Bearer " + WRITER)));
    }

    /** The channel with a writer's bearer token on every call: for calls built by hand (ClientCalls). */
    protected Channel writerChannel() {
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(authorization("Bearer " + WRITER)));
    }

    /** The same stub without the token: for the tests of write auth itself. */
    protected StudyGroupServiceGrpc.StudyGroupServiceBlockingStub anonymousApi() {
        return StudyGroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    /** A write token signed with the development secret, which the service under test verifies with. */
    protected static final String WRITER = DevTokens.devWriter();

    /** Metadata carrying {@code authorization: value}. */
    protected static Metadata authorization(String value) {
        Metadata metadata = new Metadata();
        metadata.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), value);
        return metadata;
    }

    /** The port the service under test answers gRPC on: for calls made without a channel (RawHttp2Call). */
    protected int grpcPort() {
        return grpcServer.getPort();
    }

    protected long count(String table) {
        return jdbc.sql("SELECT COUNT(*) FROM " + table).query(Long.class).single();
    }

    protected static long deadlineSeconds() {
        return CALL_DEADLINE_SECONDS;
    }

    /** Requests and responses as the bytes on the wire, for calls that send what no stub would. */
    protected static final MethodDescriptor.Marshaller<byte[]> RAW_BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
}
