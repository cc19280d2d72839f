package dev.tandem.grpc.limits;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.grpc.error.GrpcErrors;
import dev.tandem.limits.LimitsProperties;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusException;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerProperties;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Refuses a call whose metadata is above {@code tandem.limits.max-header-bytes} with
 * RESOURCE_EXHAUSTED, before any other interceptor or the service sees it.
 *
 * <p>Why here and not only in the transport: when Netty's own limit
 * (spring.grpc.server.inbound.metadata.max-size) is exceeded, the server can only answer HTTP 431,
 * which gRPC clients report as INTERNAL, and a grpc-java client does not even send metadata above
 * the limit the server advertises (it fails locally, also INTERNAL). So the transport's limit is
 * set higher (application.yml) and the service's limit is enforced here, as a status the client can
 * act on. Sizes are counted as HTTP/2 counts a header list: name + value + 32 per entry, a binary
 * value at its base64 length.
 */
@Component
@GlobalServerInterceptor
@Order(Ordered.HIGHEST_PRECEDENCE)
public class MetadataLimitInterceptor implements ServerInterceptor {

    /** RFC 9113 §6.5.2: each header field costs its name, its value and 32 bytes of overhead. */
    private static final int ENTRY_OVERHEAD = 32;

    private final long maxBytes;
    /**
     * What the transport counts and this limit does not: the pseudo-headers (:path, :authority,
     * :method, :scheme) and te, a few hundred bytes for any method of the API.
     */
    static final long TRANSPORT_MARGIN = 2048;

    /**
     * grpc-java's own cap when spring.grpc.server.inbound.metadata.max-size is unset
     * (GrpcUtil.DEFAULT_MAX_HEADER_LIST_SIZE, which is internal API).
     */
    static final DataSize GRPC_JAVA_DEFAULT_CAP = DataSize.ofKilobytes(8);

    /** The transport's cap as Boot binds it for the server it builds (spring.grpc.server.inbound.metadata.max-size). */
    @Autowired
    public MetadataLimitInterceptor(LimitsProperties limits, GrpcServerProperties server) {
        this(limits, Objects.requireNonNullElse(server.getInbound().getMetadata().getMaxSize(), GRPC_JAVA_DEFAULT_CAP));
    }

    /**
     * {@code transportCap}: the transport's own limit, which the service's must stay below, or
     * metadata between the two would reach clients as Netty's HTTP 431 (INTERNAL) and never as this
     * RESOURCE_EXHAUSTED; the service does not start otherwise.
     */
    MetadataLimitInterceptor(LimitsProperties limits, DataSize transportCap) {
        this.maxBytes = limits.maxHeaderBytes().toBytes();
        if (maxBytes + TRANSPORT_MARGIN > transportCap.toBytes()) {
            throw new IllegalStateException("tandem.limits.max-header-bytes (" + limits.maxHeaderBytes()
                    + ") must stay " + TRANSPORT_MARGIN + " bytes below the gRPC transport's cap, "
                    + "spring.grpc.server.inbound.metadata.max-size (" + transportCap
                    + "): raise that too (SPRING_GRPC_SERVER_INBOUND_METADATA_MAXSIZE)");
        }
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        long size;
        try {
            size = size(headers);
        } catch (IllegalArgumentException badName) {
            // grpc-netty lets through a header name with a character no Metadata.Key may hold (x!y),
            // and naming it to read its value throws: that reached the client as UNKNOWN. The name is
            // not echoed (it may hold any byte).
            return refuse(call, DomainException.invalid("metadata",
                    "a key holds a character gRPC does not allow in a metadata key (a-z, 0-9, '-', '_', '.')"));
        }
        if (size > maxBytes) {
            return refuse(call, new DomainException(ErrorCode.RESOURCE_EXHAUSTED,
                    "the request metadata is " + size + " bytes, above the limit of " + maxBytes + " bytes"));
        }
        return next.startCall(call, headers);
    }

    private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, DomainException refusal) {
        StatusException refused = GrpcErrors.toStatusException(refusal);
        call.close(refused.getStatus(), refused.getTrailers() == null ? new Metadata() : refused.getTrailers());
        return new ServerCall.Listener<>() {
        };
    }

    static long size(Metadata headers) {
        long size = 0;
        for (String name : headers.keys()) {
            int nameBytes = name.getBytes(StandardCharsets.US_ASCII).length;
            if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
                // grpc-java hands over a -bin value decoded; on the wire it was base64 (unpadded, as
                // gRPC sends it: 4 characters for every 3 bytes), which is what REST's count of the
                // same header would see.
                for (byte[] value : headers.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER))) {
                    size += nameBytes + (4L * value.length + 2) / 3 + ENTRY_OVERHEAD;
                }
            } else {
                for (String value : headers.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER))) {
                    size += nameBytes + value.getBytes(StandardCharsets.US_ASCII).length + ENTRY_OVERHEAD;
                }
            }
        }
        return size;
    }
}
