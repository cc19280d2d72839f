package dev.tandem.compression;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * {@code tandem.compression.*}: gzip for the responses of a client that asks for it, the same rule on
 * both wires (documented with its defaults in tandem-domain.yml). REST binds Tomcat's
 * {@code server.compression} to it (a client's {@code Accept-Encoding: gzip}); gRPC compresses the
 * response messages of a call whose client compressed its request (grpc-service's
 * ResponseCompression says why that is the signal). A client that asks for nothing gets identity.
 *
 * @param enabled          gzip at all
 * @param minResponseSize  smaller responses (REST body, gRPC message) go uncompressed: below about a
 *                         kilobyte gzip saves a few bytes for the CPU it costs
 */
@ConfigurationProperties("tandem.compression")
public record CompressionProperties(boolean enabled, DataSize minResponseSize) {

    public static final DataSize DEFAULT_MIN_RESPONSE_SIZE = DataSize.ofKilobytes(1);

    public CompressionProperties {
        minResponseSize = minResponseSize == null ? DEFAULT_MIN_RESPONSE_SIZE : minResponseSize;
        if (minResponseSize.toBytes() < 0) {
            throw new IllegalArgumentException("tandem.compression.min-response-size must not be negative, got "
                    + minResponseSize);
        }
    }
}
