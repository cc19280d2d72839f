package dev.tandem.grpc.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.fail;

/** What a server sends a raw socket, for the tests that speak to the gRPC port below any client. */
final class RawFrames {

    private RawFrames() {
    }

    /**
     * Everything the server sends until it closes the connection (a reset counts as closing); the
     * test fails, saying {@code keptOpen}, when the socket's read timeout passes first.
     */
    static byte[] readUntilClosed(Socket socket, String keptOpen) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                out.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            fail("%s (read timeout %d ms)", keptOpen, socket.getSoTimeout());
        } catch (SocketException reset) {
            // Closed with a reset: closed all the same.
        }
        return out.toByteArray();
    }

    /** The types of the HTTP/2 frames in what the server sent (it sends no preface of its own). */
    static List<Integer> frameTypes(byte[] bytes) {
        List<Integer> types = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.remaining() >= 9) {
            int length = ((buffer.get() & 0xff) << 16) | ((buffer.get() & 0xff) << 8) | (buffer.get() & 0xff);
            types.add(buffer.get() & 0xff);
            buffer.position(Math.min(buffer.limit(), buffer.position() + 5 + length));
        }
        return types;
    }
}
