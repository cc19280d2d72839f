package dev.tandem.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * One HTTP/1.1 connection of the test's own, used for one request after another as a pooling
 * client uses it, so that a test sees what a client library hides: whether the server asked to end
 * the connection ({@code Connection: close}) and whether it then did. A request can be written and
 * its response read later, to keep the request in flight meanwhile.
 */
public final class KeepAliveConnection implements AutoCloseable {

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
    public Http1Response exchange(String method, String path, List<String> headerLines, String body) throws IOException {
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

    /** The next response on the connection ({@link Http1Response#read}). */
    public Http1Response read() throws IOException {
        return Http1Response.read(in);
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

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
