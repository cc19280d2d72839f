package dev.tandem.grpc.hostile;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import io.grpc.Status;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import dev.tandem.testsupport.Await;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
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
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * One connection holds at most {@code tandem.limits.max-calls-per-connection} calls at once, and
 * the server at most {@code tandem.limits.max-open-calls} over all its connections: the server
 * advertises the first in its SETTINGS (MAX_CONCURRENT_STREAMS) and ends a call above either at
 * once, even for a client that never acknowledged those SETTINGS. Unbounded, as grpc-java leaves
 * it, one connection opened 200,000 calls that never ended their request in a few seconds: each is
 * held until its deadline (10 s), and the gRPC service (-Xmx384m) ran out of heap and stopped
 * answering anyone, its health endpoint included; bounded per connection only, 200 connections
 * would do the same.
 */
@TestPropertySource(properties = {"tandem.limits.max-calls-per-connection=10", "tandem.limits.max-open-calls=20"})
class OpenCallsGrpcTest extends GrpcIntegrationTest {

    /** Not a timing assertion: a bound so that a server that never answers fails the test. */
    private static final int READ_TIMEOUT_MILLIS = 30_000;
    private static final int LIMIT = 10;
    private static final int SERVER_LIMIT = 20;
    private static final Duration BOUND = Duration.ofSeconds(30);

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int SETTINGS = 0x4;
    private static final int HEADERS = 0x1;
    private static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;

    @Autowired MeterRegistry meters;

    /** Calls a test before left open end when its sockets close; each test starts from none. */
    @BeforeEach
    void noCallOpen() {
        awaitOpenCalls(0);
    }

    @Test
    void theServerAdvertisesTheLimit() throws IOException {
        try (Socket socket = connect()) {
            Frame settings = next(new DataInputStream(socket.getInputStream()));
            assertThat(settings.type()).as("the server's first frame").isEqualTo(SETTINGS);
            assertThat(settings.setting(SETTINGS_MAX_CONCURRENT_STREAMS))
                    .as("MAX_CONCURRENT_STREAMS the server advertises").isEqualTo(LIMIT);
        }
    }

    /**
     * A client that never acknowledges the server's SETTINGS (so Netty does not enforce them) and
     * opens LIMIT + 1 calls whose requests never end: one is refused at once with RESOURCE_EXHAUSTED,
     * while the others are held (until their deadline), and everyone else is served as before.
     */
    @Test
    void aCallAboveTheLimitOfItsConnectionIsRefusedAtOnceWhateverTheClientAcknowledged() throws Exception {
        try (Socket socket = connect()) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            for (int call = 0; call <= LIMIT; call++) { // streams 1, 3, ..., 2 * LIMIT + 1
                out.write(frame(HEADERS, 0x4, 1 + 2 * call, getGroupHeaders()));
            }
            out.flush();

            // The calls start concurrently, so any one of them may be the one above the limit; it
            // is answered at once, the others only at their deadline (DEADLINE_EXCEEDED).
            assertFirstAnswerRefuses(in);
        }
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
    }

    /**
     * Two connections holding LIMIT calls each fill the server's SERVER_LIMIT: a call on a third
     * connection, under its own connection's bound, is refused at once; once the first two are
     * closed, their calls are counted out and everyone is served again.
     */
    @Test
    void aCallAboveTheServersLimitIsRefusedAtOnceWhateverConnectionItCameOn() throws Exception {
        try (Socket first = connect(); Socket second = connect()) {
            for (Socket socket : new Socket[] {first, second}) {
                for (int call = 0; call < LIMIT; call++) {
                    socket.getOutputStream().write(frame(HEADERS, 0x4, 1 + 2 * call, getGroupHeaders()));
                }
                socket.getOutputStream().flush();
            }
            awaitOpenCalls(SERVER_LIMIT);
            try (Socket third = connect()) {
                third.getOutputStream().write(frame(HEADERS, 0x4, 1, getGroupHeaders()));
                third.getOutputStream().flush();
                assertFirstAnswerRefuses(new DataInputStream(third.getInputStream()));
            }
        }
        awaitOpenCalls(0);
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
    }

    private void awaitOpenCalls(int count) {
        Await.until("tandem.grpc.calls.open to read " + count, BOUND,
                () -> meters.get("tandem.grpc.calls.open").gauge().value() == count);
    }

    /** The first answer about a call ends it at once (trailers-only) with RESOURCE_EXHAUSTED. */
    private static void assertFirstAnswerRefuses(DataInputStream in) throws Exception {
        Frame answer = next(in);
        while (answer.stream() == 0) { // the server's SETTINGS, WINDOW_UPDATE, PING: not about a call
            answer = next(in);
        }
        assertThat(answer.type()).as("the first answer to a call").isEqualTo(HEADERS);
        assertThat(answer.flags() & 0x1).as("it ends the call (trailers-only)").isEqualTo(0x1);
        Http2Headers trailers = new DefaultHttp2HeadersDecoder(false)
                .decodeHeaders(answer.stream(), Unpooled.wrappedBuffer(answer.payload()));
        assertThat(String.valueOf(trailers.get("grpc-status")))
                .as("grpc-status of the first call answered").isEqualTo(String.valueOf(Status.Code.RESOURCE_EXHAUSTED.value()));
    }

    /** A connection that has sent the preface and an empty SETTINGS, and acknowledges nothing. */
    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", grpcPort()), READ_TIMEOUT_MILLIS);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        socket.getOutputStream().write(PREFACE);
        socket.getOutputStream().write(frame(SETTINGS, 0, 0, new byte[0]));
        socket.getOutputStream().flush();
        return socket;
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
