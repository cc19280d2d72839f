package dev.tandem.grpc.hostile;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random bytes on the gRPC port, over raw TCP: garbage, an HTTP/1.1 request, a TLS handshake, a
 * truncated HTTP/2 preface, a valid preface followed by broken frames, connections left idle.
 * The server must drop each bad connection (with a GOAWAY where HTTP/2 got far enough to send one)
 * and go on serving everyone else: health SERVING and a normal GetGroup afterwards.
 */
class GrpcPortGarbageTest extends GrpcIntegrationTest {

    /** Not a timing assertion: a bound so that a server that never closes fails the test. */
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int GOAWAY = 0x7;
    private static final List<Integer> NONE = List.of();
    private static final List<Integer> GOAWAY_ONLY = List.of(GOAWAY);

    @Autowired GrpcServerLifecycle server;

    static Stream<Arguments> garbage() {
        byte[] emptySettings = frame(0x4, 0, 0, new byte[0]);
        return Stream.of(
                Arguments.of("1 KiB of random bytes", randomBytes(1024), NONE),
                Arguments.of("an HTTP/1.1 request", "GET /tandem.v1.StudyGroupService/GetGroup HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII), NONE),
                Arguments.of("an HTTP/1.1 request asking to upgrade to h2c", ("GET / HTTP/1.1\r\nHost: x\r\n"
                        + "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII), NONE),
                Arguments.of("a TLS ClientHello on the plaintext port", tlsClientHello(), NONE),
                Arguments.of("half of the HTTP/2 preface, then end of stream", java.util.Arrays.copyOf(PREFACE, 12), NONE),
                Arguments.of("the preface, then random bytes", concat(PREFACE, randomBytes(512)), GOAWAY_ONLY),
                Arguments.of("the preface, then a frame longer than the maximum frame size",
                        concat(PREFACE, emptySettings, frameHeader(1 << 23, 0x0, 0, 1)), GOAWAY_ONLY),
                Arguments.of("the preface, then DATA on stream 0",
                        concat(PREFACE, emptySettings, frame(0x0, 0, 0, new byte[]{1, 2, 3})), GOAWAY_ONLY),
                Arguments.of("the preface, then HEADERS that are not HPACK",
                        concat(PREFACE, emptySettings, frame(0x1, 0x4 | 0x1, 1, randomBytes(64))), GOAWAY_ONLY),
                Arguments.of("the preface, then SETTINGS of a length that is not a multiple of 6",
                        concat(PREFACE, frame(0x4, 0, 0, new byte[]{0, 1, 0})), GOAWAY_ONLY),
                Arguments.of("the preface, then a frame of an unknown type and a PING of the wrong size",
                        concat(PREFACE, emptySettings, frame(0x77, 0, 0, new byte[]{9}), frame(0x6, 0, 0, new byte[]{1})), GOAWAY_ONLY),
                Arguments.of("the preface, then WINDOW_UPDATE of 0 on the connection",
                        concat(PREFACE, emptySettings, frame(0x8, 0, 0, new byte[]{0, 0, 0, 0})), GOAWAY_ONLY),
                // Metadata above the transport's cap (spring.grpc.server.inbound.metadata.max-size,
                // 64KB), which no grpc-java client would send: the server refuses the stream (an
                // HTTP 431, a reset or a GOAWAY) and carries on.
                Arguments.of("the preface, then a request whose metadata is 100 KB",
                        concat(PREFACE, emptySettings, headerBlockFrames(1, hugeRequestHeaders(100 * 1024))),
                        List.of(HEADERS, RST_STREAM, GOAWAY)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("garbage")
    void theServerDropsTheConnectionAndKeepsServing(String name, byte[] bytes, List<Integer> anyOfFrames) throws IOException {
        byte[] answer;
        try (Socket socket = connect()) {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            // Our side says it is done, so that a server still waiting for more bytes sees the end.
            socket.shutdownOutput();
            answer = RawFrames.readUntilClosed(socket, "the server kept the connection open after garbage");
        }
        if (!anyOfFrames.isEmpty()) {
            assertThat(RawFrames.frameTypes(answer)).as("HTTP/2 frames the server sent after %s", name)
                    .containsAnyElementsOf(anyOfFrames);
        }
        assertStillServing();
    }

    /** Connections that never send a byte (or stop after the preface) hold nothing others need. */
    @Test
    void idleConnectionsDoNotStopTheServerFromServing() throws IOException {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                idle.add(connect());
            }
            for (int i = 0; i < 20; i++) {
                Socket afterPreface = connect();
                afterPreface.getOutputStream().write(concat(PREFACE, frame(0x4, 0, 0, new byte[0])));
                afterPreface.getOutputStream().flush();
                idle.add(afterPreface);
            }
            // While all of them are held open: the server need not close them, only not depend on them.
            assertStillServing();
        } finally {
            for (Socket socket : idle) {
                socket.close();
            }
        }
        assertStillServing();
    }

    private void assertStillServing() {
        HealthCheckResponse health = HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("").build());
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.getPort()), READ_TIMEOUT_MILLIS);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        return socket;
    }

    /**
     * The header block of a GetGroup request with one more header of {@code fillerBytes}, in HPACK
     * ("literal header field without indexing, new name" for every field, RFC 7541 §6.2.2).
     */
    private static byte[] hugeRequestHeaders(int fillerBytes) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        String[][] fields = {{":method", "POST"}, {":scheme", "http"}, {":path", "/tandem.v1.StudyGroupService/GetGroup"},
                {":authority", "127.0.0.1"}, {"content-type", "application/grpc"}, {"te", "trailers"},
                {"x-filler", "a".repeat(fillerBytes)}};
        for (String[] field : fields) {
            block.write(0x00);
            hpackString(block, field[0]);
            hpackString(block, field[1]);
        }
        return block.toByteArray();
    }

    private static void hpackString(ByteArrayOutputStream out, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        // Length as an integer with a 7-bit prefix (RFC 7541 §5.1), not Huffman-coded.
        int length = bytes.length;
        if (length < 127) {
            out.write(length);
        } else {
            out.write(127);
            length -= 127;
            while (length >= 128) {
                out.write((length & 0x7f) | 0x80);
                length >>>= 7;
            }
            out.write(length);
        }
        out.writeBytes(bytes);
    }

    /** A header block as HEADERS and CONTINUATION frames of at most the default frame size (16384). */
    private static byte[] headerBlockFrames(int stream, byte[] block) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int offset = 0; offset < block.length; offset += 16384) {
            int length = Math.min(16384, block.length - offset);
            boolean last = offset + length >= block.length;
            int type = offset == 0 ? HEADERS : 0x9;
            int flags = last ? 0x4 : 0; // END_HEADERS on the last
            out.writeBytes(frame(type, flags, stream, java.util.Arrays.copyOfRange(block, offset, offset + length)));
        }
        return out.toByteArray();
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        return concat(frameHeader(payload.length, type, flags, stream), payload);
    }

    private static byte[] frameHeader(int length, int type, int flags, int stream) {
        return ByteBuffer.allocate(9).put((byte) (length >>> 16)).put((byte) (length >>> 8)).put((byte) length)
                .put((byte) type).put((byte) flags).putInt(stream).array();
    }

    /** The start of a TLS 1.2 ClientHello record: what a TLS client sends first. */
    private static byte[] tlsClientHello() {
        byte[] hello = randomBytes(200);
        hello[0] = 0x16; // handshake
        hello[1] = 0x03;
        hello[2] = 0x01;
        hello[3] = 0x00;
        hello[4] = (byte) 195;
        hello[5] = 0x01; // ClientHello
        return hello;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** Deterministic, so that a failure can be replayed. */
    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new Random(n).nextBytes(bytes);
        return bytes;
    }
}
