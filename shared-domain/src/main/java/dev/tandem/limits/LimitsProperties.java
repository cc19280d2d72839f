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
 * @param idleTimeout      longest a gRPC connection with no call in progress stays open (the
 *                         server then sends GOAWAY and closes it); REST's Tomcat closes an idle
 *                         connection after its own connection timeout (60 s)
 * @param maxCallsPerConnection  most gRPC calls one connection may hold at once (HTTP/2's
 *                         MAX_CONCURRENT_STREAMS; a stream above it is refused); an HTTP/1.1
 *                         connection carries one request at a time
 * @param maxOpenCalls     most gRPC calls the server holds at once over all its connections;
 *                         one more is refused (REST: Tomcat's max-connections, 8192, bounds the
 *                         requests in progress the same way, an HTTP/1.1 connection carrying one)
 */
@ConfigurationProperties("tandem.limits")
public record LimitsProperties(DataSize maxRequestBytes, DataSize maxHeaderBytes, Integer maxPageSize,
                               Duration requestTimeout, Duration idleTimeout,
                               Integer maxCallsPerConnection, Integer maxOpenCalls) {

    public static final DataSize DEFAULT_MAX_REQUEST_BYTES = DataSize.ofKilobytes(64);
    public static final DataSize DEFAULT_MAX_HEADER_BYTES = DataSize.ofKilobytes(8);
    public static final int DEFAULT_MAX_PAGE_SIZE = 1000;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** As long as Tomcat keeps an idle REST connection (its connection timeout). */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /**
     * Above any client's need (the bench's overload profile keeps a few hundred calls in flight per
     * gRPC connection at three times capacity), far below what exhausts a heap: unbounded, one
     * connection held 200,000 calls at about 2 KB each and a 384 MB service ran out of memory.
     */
    public static final int DEFAULT_MAX_CALLS_PER_CONNECTION = 1000;
    /**
     * The bound over all connections, which the one per connection is not: at about 2 KB a call
     * held, 200 connections of 1,000 calls each fill a 384 MB heap, while 10,000 calls hold about
     * 20 MB. Far above what the bench keeps in flight (at most 500 connections of one call).
     */
    public static final int DEFAULT_MAX_OPEN_CALLS = 10_000;
    /**
     * The largest max-page-size that may be set. A page is one query of page_size + 1 rows held in
     * memory and one answer: 10,000 groups are a few MB, under the 4 MiB a grpc-java client accepts
     * by default, and far from int's overflow of page_size + 1 (at Integer.MAX_VALUE a negative LIMIT).
     */
    public static final int MOST_PAGE_SIZE = 10_000;

    public LimitsProperties {
        maxRequestBytes = maxRequestBytes == null ? DEFAULT_MAX_REQUEST_BYTES : maxRequestBytes;
        maxHeaderBytes = maxHeaderBytes == null ? DEFAULT_MAX_HEADER_BYTES : maxHeaderBytes;
        // TANDEM_LIMITS_MAX_PAGE_SIZE=0 was quietly the default, 1000.
        maxPageSize = maxPageSize == null ? DEFAULT_MAX_PAGE_SIZE : maxPageSize;
        requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
        idleTimeout = idleTimeout == null ? DEFAULT_IDLE_TIMEOUT : idleTimeout;
        maxCallsPerConnection = maxCallsPerConnection == null ? DEFAULT_MAX_CALLS_PER_CONNECTION : maxCallsPerConnection;
        maxOpenCalls = maxOpenCalls == null ? DEFAULT_MAX_OPEN_CALLS : maxOpenCalls;
        if (maxRequestBytes.toBytes() <= 0 || maxRequestBytes.toBytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tandem.limits.max-request-bytes must be between 1B and 2GB, got "
                    + maxRequestBytes);
        }
        if (maxHeaderBytes.toBytes() <= 0 || maxHeaderBytes.toBytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tandem.limits.max-header-bytes must be between 1B and 2GB, got "
                    + maxHeaderBytes);
        }
        Settings.requireAtLeastOne(maxPageSize, "tandem.limits.max-page-size");
        if (maxPageSize > MOST_PAGE_SIZE) {
            throw new IllegalArgumentException(Settings.named("tandem.limits.max-page-size") + " must be at most "
                    + MOST_PAGE_SIZE + " (a page is one query and one answer), got " + maxPageSize);
        }
        Settings.requirePositive(requestTimeout, "tandem.limits.request-timeout");
        Settings.requirePositive(idleTimeout, "tandem.limits.idle-timeout");
        Settings.requireAtLeastOne(maxCallsPerConnection, "tandem.limits.max-calls-per-connection");
        Settings.requireAtLeastOne(maxOpenCalls, "tandem.limits.max-open-calls");
    }

    /** The defaults, for code that runs without a Spring context. */
    public static LimitsProperties defaults() {
        return new LimitsProperties(null, null, null, null, null, null, null);
    }
}
