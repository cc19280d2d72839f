package dev.tandem.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection of the test's own, used for one request after another as a pooling
 * client uses it, so that a test sees what a client library hides: whether the server asked to end
 * the connection ({@code Connection: close}) and whether it then did. A request can be written and
 * its response read later, to keep the request in flight meanwhile.
 */
public final class KeepAliveConnection implements AutoCloseable {

    /** A response; header names in lower case. */
    public record Response(int status, Map<String, String> headers, String body) {

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Socket socket;
    private final int port;
    private final InputStream in;
    private final OutputStream out;

    private KeepAliveConnection(Socket socket, int port) throws IOException {
        this.socket = socket;
        this.port = port;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * Connects to {@code port} on loopback; {@code readBound} bounds every read, so that a server
     * that never answers fails the test instead of hanging it (not a timing assertion).
     */
    public static KeepAliveConnection open(int port, Duration readBound) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout((int) readBound.toMillis());
        return new KeepAliveConnection(socket, port);
    }

    /** Sends a request and reads its response. */
    public Response exchange(String method, String path, List<String> headerLines, String body) throws IOException {
        send(method, path, headerLines, body);
        return read();
    }

    /**
     * Writes {@code method path HTTP/1.1} with Host, the given header lines ("Name: value") and, if
     * not null, the body with its Content-Length; the response is {@link #read()}'s.
     */
    public void send(String method, String path, List<String> headerLines, String body) throws IOException {
        StringBuilder request = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\n");
        headerLines.forEach(line -> request.append(line).append("\r\n"));
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            request.append("Content-Length: ").append(content.length).append("\r\n");
        }
        out.write(request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(content);
        out.flush();
    }

    /** The next response on the connection (Content-Length or chunked framing). */
    public Response read() throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("the server closed the connection without an answer");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(); line != null && !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size = chunkSize(); size > 0; size = chunkSize()) {
                body.write(in.readNBytes(size));
                line(); // the CRLF after the chunk
            }
            for (String trailer = line(); trailer != null && !trailer.isEmpty(); trailer = line()) {
                // trailers: none expected, skipped
            }
        } else {
            body.write(in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0"))));
        }
        return new Response(Integer.parseInt(statusLine.split(" ", 3)[1]), headers,
                body.toString(StandardCharsets.UTF_8));
    }

    /**
     * Whether the server ends the connection within {@code bound} (end of stream, or a reset) with
     * nothing more sent on it; false if it is still open then.
     */
    public boolean closedByServerWithin(Duration bound) throws IOException {
        int before = socket.getSoTimeout();
        socket.setSoTimeout((int) bound.toMillis());
        try {
            int next = in.read();
            if (next >= 0) {
                throw new IllegalStateException("the server sent more on the connection (byte " + next + ")");
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(before);
            }
        }
    }

    private int chunkSize() throws IOException {
        String line = line();
        if (line == null) {
            throw new IOException("the connection ended inside a chunked body");
        }
        return Integer.parseInt(line.split(";")[0].trim(), 16);
    }

    /** One CRLF-terminated line without its terminator; null at the end of the stream. */
    private String line() throws IOException {
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

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
