package dev.tandem.testsupport;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ListeningSocketsTest {

    @Test
    void onlyListeningSocketsOnThePortCount() {
        // Lines of /proc/net/tcp and /proc/net/tcp6 (a Debian 12 machine): 0x4A92 = 19090
        List<String> table = List.of(
                "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
                "   0: 0100007F:4A92 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0 100 0 0 10 0",
                "   1: 0100007F:4A92 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2222 1 0 20 4 30 10 -1",
                "   2: 0100007F:4A93 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3333 1 0 100 0 0 10 0",
                "   3: 0000000000000000FFFF00000100007F:4A92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0 100 0 0 10 0");

        assertThat(ListeningSockets.listeningInodes(table, 19090)).containsExactlyInAnyOrder("1111", "4444");
        assertThat(ListeningSockets.listeningInodes(table, 8080)).isEmpty();
        assertThat(ListeningSockets.listeningInodes(List.of(), 19090)).isEmpty();
    }

    @Test
    void theListeningAddressesOfTheGivenSocketsAreDecodedFromTheTable() throws Exception {
        // /proc/net/tcp and tcp6 lines (a Debian 12 machine): 127.0.0.1:19090, ::ffff:127.0.0.1:19091,
        // every IPv6 address :19092, and a connection (not listening) on a socket of the same process.
        List<String> table = List.of(
                "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
                "   0: 0100007F:4A92 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0 100 0 0 10 0",
                "   1: 0000000000000000FFFF00000100007F:4A93 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2222 1 0 100 0 0 10 0",
                "   2: 00000000000000000000000000000000:4A94 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3333 1 0 100 0 0 10 0",
                "   3: 0100007F:4A95 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 4444 1 0 20 4 30 10 -1",
                "   4: 0100007F:4A96 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5555 1 0 100 0 0 10 0");

        assertThat(ListeningSockets.listeningAddresses(table, Set.of("1111", "2222", "3333", "4444"))).containsExactlyInAnyOrder(
                new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 19090),
                new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 19091),
                new InetSocketAddress(InetAddress.getByName("::"), 19092));
    }

    @Test
    void aProcessListensOnTheAddressOfItsServerSocket() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Optional<Set<InetSocketAddress>> listening = ListeningSockets.addressesOf(ProcessHandle.current().pid());
            assumeTrue(listening.isPresent(), "needs Linux's /proc");
            assertThat(listening.get()).contains(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
        }
    }

    @Test
    void aPortIsOwnedByTheProcessListeningOnItAndByNoOther() throws Exception {
        long self = ProcessHandle.current().pid();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = server.getLocalPort();
            assumeTrue(ListeningSockets.ownedBy(self, port).isPresent(), "needs Linux's /proc");
            Process other = new ProcessBuilder("sleep", "60").start();
            // A connection to the port: its client and accepted ends are this process's sockets
            // too, but not listening ones.
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port); Socket accepted = server.accept()) {
                assertThat(ListeningSockets.ownedBy(self, port)).isEqualTo(Optional.of(true));
                assertThat(ListeningSockets.ownedBy(other.pid(), port)).isEqualTo(Optional.of(false));
                assertThat(ListeningSockets.ownedBy(self, client.getLocalPort())).isEqualTo(Optional.of(false));
            } finally {
                other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
