package dev.tandem.grpc.compression;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tandem.compression.enabled=false} (TANDEM_COMPRESSION_ENABLED) turns gzip off on the gRPC
 * wire as README promises: a large answer to a call that asked for it travels as it is. A gzipped
 * request is still read (decompression is not the setting's).
 */
@TestPropertySource(properties = "tandem.compression.enabled=false")
class CompressionOffGrpcTest extends GrpcIntegrationTest {

    @Test
    void aCallThatAsksForGzipGetsIdentity() {
        ResponseCompressionGrpcTest.Received received = new ResponseCompressionGrpcTest.Received();
        ListGroupsResponse page = StudyGroupServiceGrpc.newBlockingStub(channel).withInterceptors(received)
                .withCompression("gzip").withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .listGroups(ListGroupsRequest.newBuilder().setPageSize(50).build());

        assertThat(page.getGroupsCount()).isEqualTo(50);
        assertThat(page.getSerializedSize()).isGreaterThan(1024);
        assertThat(received.encoding.get()).isEqualTo("identity");
        assertThat(received.wire.get()).isEqualTo(received.uncompressed.get()).isEqualTo(page.getSerializedSize());
    }
}
