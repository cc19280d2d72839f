package dev.tandem.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP/1.1 response read off a socket byte by byte, for tests that must see what a client library
 * hides or will not send: the framing, {@code Connection: close}, the answer to bytes no client
 * writes ({@link KeepAliveConnection}, the REST service's hostile-input requests). Header names in
 * lower case.
 */
public record Http1Response(int status, Map<String, String> headers, byte[] body) {

    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * Reads one response from {@code in}: a chunked body (its trailers skipped), one of its
     * Content-Length, none for a 1xx, 204 or 304, else the rest of the stream (a body the server
     * ends by closing the connection). Not for the answer to a HEAD, whose Content-Length has no body.
     */
    public static Http1Response read(InputStream in) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            throw new IOException("the server closed the connection without an answer");
        }
        int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            ByteArrayOutputStream chunks = new ByteArrayOutputStream();
            for (int size = chunkSize(in); size > 0; size = chunkSize(in)) {
                chunks.write(in.readNBytes(size));
                line(in); // the CRLF after the chunk
            }
            for (String trailer = line(in); trailer != null && !trailer.isEmpty(); trailer = line(in)) {
                // trailers: none expected, skipped
            }
            body = chunks.toByteArray();
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else if (status < 200 || status == 204 || status == 304) {
            body = new byte[0];
        } else {
            body = in.readAllBytes();
        }
        return new Http1Response(status, headers, body);
    }

    private static int chunkSize(InputStream in) throws IOException {
        String line = line(in);
        if (line == null) {
            throw new IOException("the connection ended inside a chunked body");
        }
        return Integer.parseInt(line.split(";")[0].trim(), 16);
    }

    /** One CRLF-terminated line without its terminator; null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0; b = in.read()) {
            if (b == '\n') {
                byte[] line = bytes.toByteArray();
                int length = line.length > 0 && line[line.length - 1] == '\r' ? line.length - 1 : line.length;
                return new String(line, 0, length, StandardCharsets.ISO_8859_1);
            }
            bytes.write(b);
        }
        return bytes.size() == 0 ? null : bytes.toString(StandardCharsets.ISO_8859_1);
    }
}
