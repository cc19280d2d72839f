package dev.tandem.limits;

import dev.tandem.config.Settings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import java.time.Duration;

/**
 * {@code tandem.limits.*}, the bounds both wires put on what one request may cost, documented with
 * their defaults in tandem-domain.yml. The services bind their protocol limits to the same values
 * (REST: the request body filter and Tomcat's header limit; gRPC: the inbound message and metadata
 * sizes), so a request too big for one wire is too big for the other.
 *
 * @param maxRequestBytes  largest request body (REST) or message (gRPC)
 * @param maxHeaderBytes   largest request line and headers (REST) or metadata (gRPC)
 * @param maxPageSize      largest ListGroups page_size a client may ask for
 * @param requestTimeout   longest a request may run on the server; a client's shorter deadline
 *                         wins (dev.tandem.deadline.RequestDeadlines)
 */
@ConfigurationProperties("tandem.limits")
public record LimitsProperties(DataSize maxRequestBytes, DataSize maxHeaderBytes, Integer maxPageSize,
                               Duration requestTimeout) {

    public static final DataSize DEFAULT_MAX_REQUEST_BYTES = DataSize.ofKilobytes(64);
    public static final DataSize DEFAULT_MAX_HEADER_BYTES = DataSize.ofKilobytes(8);
    public static final int DEFAULT_MAX_PAGE_SIZE = 1000;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public LimitsProperties {
        maxRequestBytes = maxRequestBytes == null ? DEFAULT_MAX_REQUEST_BYTES : maxRequestBytes;
        maxHeaderBytes = maxHeaderBytes == null ? DEFAULT_MAX_HEADER_BYTES : maxHeaderBytes;
        // TANDEM_LIMITS_MAX_PAGE_SIZE=0 was quietly the default, 1000.
        maxPageSize = maxPageSize == null ? DEFAULT_MAX_PAGE_SIZE : maxPageSize;
        requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
        if (maxRequestBytes.toBytes() <= 0 || maxRequestBytes.toBytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tandem.limits.max-request-bytes must be between 1B and 2GB, got "
                    + maxRequestBytes);
        }
        if (maxHeaderBytes.toBytes() <= 0 || maxHeaderBytes.toBytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tandem.limits.max-header-bytes must be between 1B and 2GB, got "
                    + maxHeaderBytes);
        }
        Settings.requireAtLeastOne(maxPageSize, "tandem.limits.max-page-size");
        Settings.requirePositive(requestTimeout, "tandem.limits.request-timeout");
    }

    /** The defaults, for code that runs without a Spring context. */
    public static LimitsProperties defaults() {
        return new LimitsProperties(null, null, null, null);
    }
}
