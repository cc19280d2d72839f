package dev.tandem.grpc.compression;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.HelloRequest;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.Codec;
import io.grpc.DecompressorRegistry;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
    private static final class Received implements ClientInterceptor {
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
    void aMessageUnderTheThresholdTravelsAsItIs() {
        Received received = new Received();
        var hello = HelloServiceGrpc.newBlockingStub(channel).withInterceptors(received).withCompression("gzip")
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS).hello(HelloRequest.getDefaultInstance());

        assertThat(hello.getMessage()).isEqualTo("hello");
        assertThat(received.wire.get()).isEqualTo(received.uncompressed.get()).isEqualTo(hello.getSerializedSize());
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
