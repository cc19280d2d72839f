package dev.tandem.testsupport;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FreePortTest {

    /**
     * The race this guards against: a port from bind(0) is an ephemeral one, which any outgoing
     * connection may take as its local port before the test's server binds it (CI saw "Address
     * already in use" that way while the other lane was busy). A picked port must lie outside the
     * range the kernel hands to outgoing connections, and be free.
     */
    @Test
    void aPickedPortIsFreeAndNotOneTheKernelGivesOutgoingConnections() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.isReadable(range), "needs Linux's /proc");
        int ephemeralLow = Integer.parseInt(Files.readAllLines(range).getFirst().trim().split("\\s+")[0]);
        for (int i = 0; i < 50; i++) {
            int port = FreePort.pick();
            assertThat(port).isLessThan(ephemeralLow).isGreaterThanOrEqualTo(20_000);
            try (ServerSocket server = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertThat(server.getLocalPort()).isEqualTo(port);
            }
        }
    }

    /**
     * Other stages of make test bind fixed ports in the same stretch below the ephemeral range (the
     * README test's servers, the smoke bench's services) while this one's tests pick: a pick must
     * never be one of them. 5,000 picks land on one of the seven about three times over, so this
     * failed before they were left out.
     */
    @Test
    void aPickIsNeverAPortAnotherStageBindsByNumber() {
        Set<Integer> fixed = Set.of(23306, 26379, 28080, 28081, 28443, 29090, 29443);
        for (int i = 0; i < 5_000; i++) {
            assertThat(FreePort.pick()).isNotIn(fixed);
        }
    }
}
