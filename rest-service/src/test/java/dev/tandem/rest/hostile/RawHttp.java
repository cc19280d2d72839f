package dev.tandem.rest.hostile;

import dev.tandem.testsupport.Http1Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * HTTP/1.1 over a plain socket, byte for byte as given: hostile requests are exactly what an HTTP
 * client library refuses to send (invalid bytes in the request line, a Content-Length it does not
 * keep, oversized headers). One request per connection. The body is written on another thread
 * while the response is read, because the server may answer (and stop reading) before the body is
 * sent; a write that then fails is expected and ignored.
 */
final class RawHttp {

    /** How the body travels. */
    enum Framing {
        /** Content-Length: the body's length, then the body. */
        CONTENT_LENGTH,
        /** Transfer-Encoding: chunked, in 8 KiB chunks: the length is not known until the end. */
        CHUNKED,
        /** Content-Length: the body's length, but the body is never sent. */
        DECLARED_ONLY
    }

    /** Not a timing assertion: a bound so that a server that never answers fails the test. */
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private RawHttp() {
    }

    /**
     * Sends {@code method target HTTP/1.1} with Host, Connection: close, the given header lines
     * ("Name: value", as raw bytes in ISO-8859-1 so any byte can be sent) and the body.
     */
    static Http1Response exchange(int port, String method, String target, List<String> headers, byte[] body, Framing framing)
            throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        write(head, method + " " + target + " HTTP/1.1\r\n");
        write(head, "Host: 127.0.0.1:" + port + "\r\n");
        write(head, "Connection: close\r\n");
        for (String header : headers) {
            write(head, header + "\r\n");
        }
        if (body != null) {
            write(head, framing == Framing.CHUNKED ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + body.length + "\r\n");
        }
        write(head, "\r\n");

        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                try {
                    out.write(head.toByteArray());
                    if (body != null && framing != Framing.DECLARED_ONLY) {
                        out.write(framing == Framing.CHUNKED ? chunked(body) : body);
                    }
                    out.flush();
                } catch (IOException e) {
                    // The server answered and closed before taking the whole body: that is allowed.
                }
            });
            Http1Response response = Http1Response.read(socket.getInputStream());
            sending.cancel(true);
            return response;
        }
    }

    private static byte[] chunked(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int offset = 0; offset < body.length; offset += 8192) {
            int length = Math.min(8192, body.length - offset);
            write(out, Integer.toHexString(length) + "\r\n");
            out.write(body, offset, length);
            write(out, "\r\n");
        }
        write(out, "0\r\n\r\n");
        return out.toByteArray();
    }

    private static void write(ByteArrayOutputStream out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
    }
}
