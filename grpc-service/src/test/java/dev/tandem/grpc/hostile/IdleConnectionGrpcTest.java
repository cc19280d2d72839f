package dev.tandem.grpc.hostile;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import io.grpc.ConnectivityState;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection with no call in progress is closed after {@code tandem.limits.idle-timeout}. Without
 * it grpc-java kept such a connection for as long as its client liked (only the first 120 s, until
 * the HTTP/2 preface, are bounded): one client holding 19,980 of them, each opened with the preface
 * and then silent, used up the gRPC service's 20,000 file descriptors, and from then on no one could
 * connect ("accept(..) failed with error(-24): Too many open files", GetGroup timing out) for as
 * long as that client stayed. REST's Tomcat closes an idle connection after 60 s.
 */
@TestPropertySource(properties = "tandem.limits.idle-timeout=1s")
class IdleConnectionGrpcTest extends GrpcIntegrationTest {

    /** Not a timing assertion: a bound so that a server that never closes fails the test. */
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EMPTY_SETTINGS = {0, 0, 0, 0x4, 0, 0, 0, 0, 0};
    private static final int GOAWAY = 0x7;

    @Test
    void aConnectionThatOpensNoCallIsClosedWithAGoAway() throws IOException {
        byte[] answer;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", grpcPort()), READ_TIMEOUT_MILLIS);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            socket.getOutputStream().write(PREFACE);
            socket.getOutputStream().write(EMPTY_SETTINGS);
            socket.getOutputStream().flush();
            // Our side stays open and silent, as a client holding connections would.
            answer = RawFrames.readUntilClosed(socket, "the server kept a connection with no call open (idle timeout 1 s)");
        }
        assertThat(RawFrames.frameTypes(answer)).as("the HTTP/2 frames the server sent before closing").contains(GOAWAY);
    }

    /** The close is graceful: a client's channel sees its transport go and simply reconnects for its next call. */
    @Test
    void aClientWhoseIdleConnectionWasClosedCallsAgainUnharmed() throws InterruptedException {
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
        assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);

        // The server's GOAWAY takes the channel out of READY (to IDLE): waited for, not slept on.
        CountDownLatch left = new CountDownLatch(1);
        channel.notifyWhenStateChanged(ConnectivityState.READY, left::countDown);
        assertThat(left.await(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS))
                .as("the idle connection was closed by the server").isTrue();

        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId()).isEqualTo(2);
    }
}
