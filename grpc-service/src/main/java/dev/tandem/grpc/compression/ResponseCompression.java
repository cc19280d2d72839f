package dev.tandem.grpc.compression;

import com.google.protobuf.MessageLite;
import dev.tandem.compression.CompressionProperties;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

/**
 * gzip on the gRPC wire ({@code tandem.compression.*}, the settings REST's gzip follows): a call
 * whose client asked for compression gets its response messages of at least
 * {@code min-response-size} gzip-compressed; smaller messages, and every message of a call that did
 * not ask, go as they are. gRPC compresses per message, so the threshold is checked on each one.
 *
 * <p>Asking is per-call compression: the request came with {@code grpc-encoding: gzip}
 * ({@code withCompression("gzip")} in grpc-java, {@code --enable-compression} in ghz), which is
 * also how grpc-go servers choose. {@code grpc-accept-encoding} alone is not taken as asking: a
 * grpc-go client lists every compressor its program links (ghz lists gzip on every call) and a
 * grpc-java client lists gzip by default, so it would compress for clients that never chose to.
 * It is still honoured the other way: grpc-java falls back to identity for a client whose
 * {@code grpc-accept-encoding} does not list gzip. A compressed request is always accepted
 * (grpc-java's default decompressors).
 */
@Component
@GlobalServerInterceptor
public class ResponseCompression implements ServerInterceptor {

    private static final String GZIP = "gzip";
    private static final Metadata.Key<String> REQUEST_ENCODING =
            Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

    private final boolean enabled;
    private final long minBytes;

    public ResponseCompression(CompressionProperties compression) {
        this.enabled = compression.enabled();
        this.minBytes = compression.minResponseSize().toBytes();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        if (!enabled || !GZIP.equals(headers.get(REQUEST_ENCODING))) {
            return next.startCall(call, headers);
        }
        call.setCompression(GZIP);
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(R message) {
                // the size is memoised by the message, which the marshaller asks for again anyway
                setMessageCompression(!(message instanceof MessageLite lite) || lite.getSerializedSize() >= minBytes);
                super.sendMessage(message);
            }
        }, headers);
    }
}
