package dev.tandem.grpc.compression;

import com.google.protobuf.FieldMask;
import com.google.protobuf.Message;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.proto.v1.WatchGroupRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ClientStreamTracer;
import io.grpc.Codec;
import io.grpc.Context;
import io.grpc.DecompressorRegistry;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gzip on the gRPC wire by tandem.compression.*: a large response message of a call whose client
 * asked for compression (per call) travels compressed; a small one (under min-response-size), every
 * message of a call that did not ask, and every message to a client that accepts no encoding travel
 * as they are. What travelled is read from the client's own stream tracer (bytes on the wire
 * against bytes after decompression) and the response headers.
 */
class ResponseCompressionGrpcTest extends GrpcIntegrationTest {

    private static final Metadata.Key<String> GRPC_ENCODING = Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

    /** What one call received: its grpc-encoding header and the sizes of its response message. */
    static final class Received implements ClientInterceptor {
        final AtomicReference<String> encoding = new AtomicReference<>();
        final AtomicLong wire = new AtomicLong();
        final AtomicLong uncompressed = new AtomicLong();

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            ClientStreamTracer.Factory sizes = new ClientStreamTracer.Factory() {
                @Override
                public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
                    return new ClientStreamTracer() {
                        @Override
                        public void inboundWireSize(long bytes) {
                            wire.addAndGet(bytes);
                        }

                        @Override
                        public void inboundUncompressedSize(long bytes) {
                            uncompressed.addAndGet(bytes);
                        }
                    };
                }
            };
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options.withStreamTracerFactory(sizes))) {
                @Override
                public void start(Listener<R> listener, Metadata headers) {
                    super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                        @Override
                        public void onHeaders(Metadata responseHeaders) {
                            encoding.set(responseHeaders.get(GRPC_ENCODING));
                            super.onHeaders(responseHeaders);
                        }
                    }, headers);
                }
            };
        }
    }

    private static final ListGroupsRequest FIFTY = ListGroupsRequest.newBuilder().setPageSize(50).build();

    @Test
    void aLargeResponseToACallThatAskedForGzipTravelsCompressed() {
        Received received = new Received();
        ListGroupsResponse page = StudyGroupServiceGrpc.newBlockingStub(channel).withInterceptors(received)
                .withCompression("gzip").withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS).listGroups(FIFTY);

        assertThat(page.getGroupsCount()).isEqualTo(50);
        assertThat(received.encoding.get()).isEqualTo("gzip");
        assertThat(received.uncompressed.get()).isEqualTo(page.getSerializedSize());
        assertThat(received.wire.get()).isLessThan(received.uncompressed.get() / 2);
    }

    /**
     * Every read operation of the gRPC wire (README, "The API on both wires"), asked with gzip: its
     * (first) response message travels compressed exactly when it is at least min-response-size (1KB).
     * GetGroup and WatchGroup's first state are over it (group 2's description is made long),
     * ListGroups(50) and GetLeaderboard(50) are too; GetUser and Hello are not.
     */
    @Test
    void everyReadIsCompressedForACallThatAskedWhenItsMessageIsOverTheThreshold() {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 2").query(Long.class).single();
        api().updateGroup(UpdateGroupRequest.newBuilder().setId(2)
                .setGroup(Group.newBuilder().setDescription("d".repeat(1000)))
                .setUpdateMask(FieldMask.newBuilder().addPaths("description")).setExpectedVersion(version).build());
        record Read(String operation, boolean overThreshold, Function<Channel, Message> call) {
        }
        List<Read> reads = List.of(
                new Read("GetGroup", true, asked -> stub(asked).getGroup(GetGroupRequest.newBuilder().setId(2).build())),
                new Read("ListGroups", true, asked -> stub(asked).listGroups(FIFTY)),
                new Read("GetUser", false, asked -> stub(asked).getUser(GetUserRequest.newBuilder().setId(1).build())),
                new Read("GetLeaderboard", true,
                        asked -> stub(asked).getLeaderboard(GetLeaderboardRequest.newBuilder().setLimit(50).build())),
                new Read("Hello", false, asked -> HelloServiceGrpc.newBlockingStub(asked).withCompression("gzip")
                        .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS).hello(HelloRequest.getDefaultInstance())),
                new Read("WatchGroup", true, asked -> {
                    Context.CancellableContext watching = Context.current().withCancellation();
                    try {
                        return watching.call(() -> stub(asked).watchGroup(WatchGroupRequest.newBuilder().setId(2).build()).next());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        watching.cancel(null);
                    }
                }));
        SoftAssertions each = new SoftAssertions();
        for (Read read : reads) {
            Received received = new Received();
            Message answer = read.call().apply(ClientInterceptors.intercept(channel, received));
            if (!read.operation().equals("WatchGroup")) {
                // (a watch's heartbeat, every 500 ms here, may come before the stream's cancellation)
                each.assertThat(received.uncompressed.get()).as(read.operation()).isEqualTo(answer.getSerializedSize());
            }
            each.assertThat(answer.getSerializedSize() >= 1024).as(read.operation() + " over the threshold")
                    .isEqualTo(read.overThreshold());
            if (read.overThreshold()) {
                each.assertThat(received.encoding.get()).as(read.operation()).isEqualTo("gzip");
                each.assertThat(received.wire.get()).as(read.operation()).isLessThan(received.uncompressed.get());
            } else {
                each.assertThat(received.wire.get()).as(read.operation()).isEqualTo(received.uncompressed.get());
            }
        }
        each.assertAll();
    }

    /** A StudyGroupService stub on {@code channel} whose calls ask for gzip. */
    private static StudyGroupServiceGrpc.StudyGroupServiceBlockingStub stub(Channel channel) {
        return StudyGroupServiceGrpc.newBlockingStub(channel).withCompression("gzip")
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aCallThatDidNotAskTravelsAsItIsThoughItsClientAcceptsGzip() {
        Received received = new Received();
        // grpc-java clients list gzip in grpc-accept-encoding by default: that alone is not asking
        ListGroupsResponse page = StudyGroupServiceGrpc.newBlockingStub(channel).withInterceptors(received)
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS).listGroups(FIFTY);

        assertThat(page.getGroupsCount()).isEqualTo(50);
        // grpc-java names the encoding even when it is none
        assertThat(received.encoding.get()).isEqualTo("identity");
        assertThat(received.wire.get()).isEqualTo(received.uncompressed.get()).isEqualTo(page.getSerializedSize());
    }

    @Test
    void aClientThatAcceptsNoEncodingGetsIdentity() throws InterruptedException {
        ManagedChannel identityOnly = ManagedChannelBuilder.forTarget(channel.authority()).usePlaintext()
                .decompressorRegistry(DecompressorRegistry.emptyInstance().with(Codec.Identity.NONE, false)).build();
        try {
            Received received = new Received();
            // it compresses its own request, but lists no encoding it could decompress
            ListGroupsResponse page = StudyGroupServiceGrpc.newBlockingStub(identityOnly).withInterceptors(received)
                    .withCompression("gzip").withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS).listGroups(FIFTY);

            assertThat(page.getGroupsCount()).isEqualTo(50);
            // grpc-java names the encoding even when it is none
        assertThat(received.encoding.get()).isEqualTo("identity");
            assertThat(received.wire.get()).isEqualTo(received.uncompressed.get()).isEqualTo(page.getSerializedSize());
        } finally {
            identityOnly.shutdownNow().awaitTermination(deadlineSeconds(), TimeUnit.SECONDS);
        }
    }
}
