package dev.tandem.grpc.server;

import io.grpc.Decompressor;

import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * grpc-java's gzip decompressor, opened at the first read instead of at once. Why: grpc-java's own
 * reads the gzip header while it deframes, and bytes that are not gzip fail there, as UNKNOWN with no
 * message, before the request's parse, where {@link MalformedRequests} turns what does not parse
 * into the client's INVALID_ARGUMENT. Opened lazily, the header is read inside the parse.
 */
final class LazyGzip implements Decompressor {

    @Override
    public String getMessageEncoding() {
        return "gzip";
    }

    @Override
    public InputStream decompress(InputStream compressed) {
        return new InputStream() {
            private InputStream gzip;

            private InputStream gzip() throws IOException {
                if (gzip == null) {
                    gzip = new GZIPInputStream(compressed);
                }
                return gzip;
            }

            @Override
            public int read() throws IOException {
                return gzip().read();
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                return gzip().read(buffer, offset, length);
            }

            @Override
            public void close() throws IOException {
                if (gzip != null) {
                    gzip.close();
                } else {
                    compressed.close();
                }
            }
        };
    }
}
