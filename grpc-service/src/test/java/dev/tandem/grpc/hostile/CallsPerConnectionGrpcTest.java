package dev.tandem.grpc.hostile;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.io.ByteArrayOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * One connection holds at most {@code tandem.limits.max-calls-per-connection} calls at once: the
 * server says so in its SETTINGS (MAX_CONCURRENT_STREAMS) and refuses a stream above it
 * (RST_STREAM REFUSED_STREAM, which a client may retry). Unbounded, as grpc-java leaves it, one
 * connection opened 200,000 calls that never ended their request in a few seconds: each is held
 * until its deadline (10 s), and the gRPC service (-Xmx384m) ran out of heap and stopped answering
 * anyone, its health endpoint included.
 */
@TestPropertySource(properties = "tandem.limits.max-calls-per-connection=10")
class CallsPerConnectionGrpcTest extends GrpcIntegrationTest {

    /** Not a timing assertion: a bound so that a server that never answers fails the test. */
    private static final int READ_TIMEOUT_MILLIS = 30_000;
    private static final int LIMIT = 10;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int SETTINGS = 0x4;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    private static final int REFUSED_STREAM = 0x7;

    @Test
    void aCallAboveTheLimitOfItsConnectionIsRefusedAndTheOthersAreServed() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", grpcPort()), READ_TIMEOUT_MILLIS);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            out.write(PREFACE);
            out.write(frame(SETTINGS, 0, 0, new byte[0]));
            out.flush();

            Frame settings = next(in);
            assertThat(settings.type()).as("the server's first frame").isEqualTo(SETTINGS);
            assertThat(settings.setting(SETTINGS_MAX_CONCURRENT_STREAMS))
                    .as("MAX_CONCURRENT_STREAMS the server advertises").isEqualTo(LIMIT);
            // Acknowledged: a server applies its own settings from the peer's ACK on (RFC 9113 §6.5.3).
            out.write(frame(SETTINGS, 0x1, 0, new byte[0]));

            // LIMIT + 1 calls whose requests never end, as a client holding calls open would send
            // them (ignoring the advertised limit): streams 1, 3, ..., 2 * LIMIT + 1.
            for (int call = 0; call <= LIMIT; call++) {
                out.write(frame(HEADERS, 0x4, 1 + 2 * call, getGroupHeaders()));
            }
            out.flush();

            int lastStream = 1 + 2 * LIMIT;
            for (Frame frame = next(in); ; frame = next(in)) {
                if (frame.stream() == lastStream) {
                    assertThat(frame.type()).as("the server's answer to the call above the limit").isEqualTo(RST_STREAM);
                    assertThat(frame.payload().getInt(0)).as("RST_STREAM error code").isEqualTo(REFUSED_STREAM);
                    break;
                }
                assertThat(frame.type() == RST_STREAM && frame.stream() != 0)
                        .as("a call within the limit (stream %d) was reset", frame.stream()).isFalse();
            }
        }
        // Everyone else, and the next connection, are served as before.
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
    }

    private record Frame(int type, int flags, int stream, ByteBuffer payload) {

        /** The value of SETTINGS parameter {@code id}, -1 when the frame does not carry it. */
        long setting(int id) {
            for (int at = 0; at + 6 <= payload.limit(); at += 6) {
                if ((payload.getShort(at) & 0xffff) == id) {
                    return payload.getInt(at + 2) & 0xffffffffL;
                }
            }
            return -1;
        }
    }

    private static Frame next(DataInputStream in) throws IOException {
        try {
            byte[] header = new byte[9];
            in.readFully(header);
            ByteBuffer head = ByteBuffer.wrap(header);
            int length = ((head.get() & 0xff) << 16) | ((head.get() & 0xff) << 8) | (head.get() & 0xff);
            int type = head.get() & 0xff;
            int flags = head.get() & 0xff;
            int stream = head.getInt() & 0x7fffffff;
            byte[] payload = new byte[length];
            in.readFully(payload);
            return new Frame(type, flags, stream, ByteBuffer.wrap(payload));
        } catch (SocketTimeoutException e) {
            return fail("the server sent nothing for %d ms", READ_TIMEOUT_MILLIS);
        }
    }

    /** The header block of a GetGroup call in HPACK, every field a literal without indexing (RFC 7541 §6.2.2). */
    private static byte[] getGroupHeaders() {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        String[][] fields = {{":method", "POST"}, {":scheme", "http"}, {":path", "/tandem.v1.StudyGroupService/GetGroup"},
                {":authority", "127.0.0.1"}, {"content-type", "application/grpc"}, {"te", "trailers"}};
        for (String[] field : fields) {
            block.write(0x00);
            for (String text : field) {
                byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
                block.write(bytes.length); // all shorter than 127: a one-byte length, not Huffman-coded
                block.writeBytes(bytes);
            }
        }
        return block.toByteArray();
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        return ByteBuffer.allocate(9 + payload.length)
                .put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length)
                .put((byte) type).put((byte) flags).putInt(stream).put(payload).array();
    }
}
