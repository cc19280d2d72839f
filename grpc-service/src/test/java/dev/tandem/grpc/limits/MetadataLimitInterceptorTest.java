package dev.tandem.grpc.limits;

import io.grpc.Metadata;
import dev.tandem.limits.LimitsProperties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerProperties;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How the metadata limit counts a header list: as HTTP/2 does, and as the bytes were on the wire. */
class MetadataLimitInterceptorTest {

    /**
     * A binary value arrives base64 (unpadded) and grpc-java decodes it before any interceptor: it
     * counts at its wire length, 4 characters for 3 bytes, not at its decoded one, so 7,000 random
     * bytes sent as 9,334 characters are not let through where REST refuses the same header. Failed
     * before: counted as 7,000.
     */
    @Test
    void aBinaryValueCountsAtItsBase64Length() {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("x-pad-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[7_000]);
        assertThat(MetadataLimitInterceptor.size(headers)).isEqualTo("x-pad-bin".length() + 9_334 + 32);
    }

    @Test
    void anAsciiValueCountsItsNameItsValueAnd32() {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("x-pad", Metadata.ASCII_STRING_MARSHALLER), "a".repeat(100));
        headers.put(Metadata.Key.of("x-pad", Metadata.ASCII_STRING_MARSHALLER), "b");
        assertThat(MetadataLimitInterceptor.size(headers)).isEqualTo((5 + 100 + 32) + (5 + 1 + 32));
    }

    /**
     * The service's limit must stay below the transport's cap: between the two, metadata would reach
     * the client as Netty's HTTP 431 (INTERNAL), never as RESOURCE_EXHAUSTED. A limit at or near the
     * cap stops the start, naming both settings. Before, the service started and REST and gRPC then
     * answered the same 80 KB of headers differently.
     */
    @Test
    void aLimitAtOrAboveTheTransportsCapStopsTheStart() {
        DataSize cap = DataSize.ofKilobytes(64);
        assertThatThrownBy(() -> new MetadataLimitInterceptor(limits(DataSize.ofKilobytes(128)), cap))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tandem.limits.max-header-bytes").hasMessageContaining("metadata.max-size");
        assertThatThrownBy(() -> new MetadataLimitInterceptor(limits(cap), cap)).isInstanceOf(IllegalStateException.class);
        // the pseudo-headers the transport counts and the limit does not need room too
        assertThatThrownBy(() -> new MetadataLimitInterceptor(limits(DataSize.ofBytes(cap.toBytes() - 100)), cap))
                .isInstanceOf(IllegalStateException.class);
        new MetadataLimitInterceptor(limits(DataSize.ofKilobytes(8)), cap);
    }

    /**
     * The cap is read from Boot's own binding of the server's properties, as the server it builds
     * reads it; unset, it is grpc-java's default of 8 KiB, which leaves the default limit (8 KB) no
     * room for the pseudo-headers, so the start stops and says what to raise.
     */
    @Test
    void theCapIsTheServersBoundPropertyAndUnsetItIsGrpcJavasDefault() {
        GrpcServerProperties server = new GrpcServerProperties();
        server.getInbound().getMetadata().setMaxSize(DataSize.ofKilobytes(64));
        new MetadataLimitInterceptor(LimitsProperties.defaults(), server);

        server.getInbound().getMetadata().setMaxSize(null);
        assertThatThrownBy(() -> new MetadataLimitInterceptor(LimitsProperties.defaults(), server))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("metadata.max-size (8192B)");
    }

    private static LimitsProperties limits(DataSize maxHeaderBytes) {
        return new LimitsProperties(null, maxHeaderBytes, null, null, null, null, null);
    }
}
