package dev.tandem.grpc.limits;

import io.grpc.Metadata;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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
}
