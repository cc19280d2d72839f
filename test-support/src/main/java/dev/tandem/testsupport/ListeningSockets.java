package dev.tandem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which process listens on a TCP port, from Linux's /proc. Why a test needs it: ports come from
 * {@link FreePort}, which frees the port it found before the service binds it, so a test JVM running
 * next to another (make test runs module builds side by side) can pick a port that the other's
 * service then takes. A health check that accepts whoever answers would then pass while the service
 * it started fails to bind, and the test would talk to someone else's service. And which addresses
 * a process listens on: a test of how a service is started checks that it opens the ports it was
 * given, on loopback, and no other.
 */
public final class ListeningSockets {

    private static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));
    /** st in /proc/net/tcp: 0A is TCP_LISTEN. */
    private static final String LISTEN = "0A";

    private ListeningSockets() {
    }

    /**
     * Whether a socket listening on {@code port} belongs to process {@code pid}; empty where /proc
     * cannot say (not Linux, or a process whose descriptors this user may not read).
     */
    static Optional<Boolean> ownedBy(long pid, int port) {
        Set<String> listening = new HashSet<>();
        try {
            for (Path table : TABLES) {
                if (Files.isReadable(table)) {
                    listening.addAll(listeningInodes(Files.readAllLines(table), port));
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        Path descriptors = Path.of("/proc", Long.toString(pid), "fd");
        if (!Files.isReadable(descriptors)) {
            return Optional.empty();
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(descriptors)) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException closedMeanwhile) {
                    continue;
                }
                if (target.startsWith("socket:[") && listening.contains(target.substring(8, target.length() - 1))) {
                    return Optional.of(true);
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.of(false);
    }

    /** The inodes of the sockets in a /proc/net/tcp table that listen on {@code port}, on any address. */
    static Set<String> listeningInodes(List<String> table, int port) {
        Set<String> inodes = new HashSet<>();
        // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...";
        // local_address is ADDRESS:PORT in hex.
        for (String line : table.subList(Math.min(1, table.size()), table.size())) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length < 10 || !LISTEN.equals(fields[3])) {
                continue;
            }
            String local = fields[1];
            if (Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16) == port) {
                inodes.add(fields[9]);
            }
        }
        return inodes;
    }

    /**
     * Every address process {@code pid} listens on (TCP, IPv4 and IPv6; "any address" is 0.0.0.0 or
     * ::); empty where /proc cannot say.
     */
    public static Optional<Set<InetSocketAddress>> addressesOf(long pid) {
        Set<String> inodes = new HashSet<>();
        Path descriptors = Path.of("/proc", Long.toString(pid), "fd");
        if (!Files.isReadable(descriptors)) {
            return Optional.empty();
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(descriptors)) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // not a socket any more
                }
            }
            Set<InetSocketAddress> addresses = new HashSet<>();
            for (Path table : TABLES) {
                if (Files.isReadable(table)) {
                    addresses.addAll(listeningAddresses(Files.readAllLines(table), inodes));
                }
            }
            return Optional.of(addresses);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The local addresses of the sockets in a /proc/net/tcp table that listen and whose inode is in {@code inodes}. */
    static Set<InetSocketAddress> listeningAddresses(List<String> table, Set<String> inodes) {
        Set<InetSocketAddress> addresses = new HashSet<>();
        for (String line : table.subList(Math.min(1, table.size()), table.size())) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length < 10 || !LISTEN.equals(fields[3]) || !inodes.contains(fields[9])) {
                continue;
            }
            String local = fields[1];
            int colon = local.lastIndexOf(':');
            addresses.add(new InetSocketAddress(address(local.substring(0, colon)),
                    Integer.parseInt(local.substring(colon + 1), 16)));
        }
        return addresses;
    }

    /**
     * An address as /proc writes it: hex, each 32-bit word in the host's byte order (little-endian
     * on x86 and arm64), so 127.0.0.1 is 0100007F. An IPv4-mapped IPv6 address comes back as IPv4.
     */
    private static InetAddress address(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int b = 0; b < 4; b++) {
                int at = (word * 4 + (3 - b)) * 2;
                bytes[word * 4 + b] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new UncheckedIOException(e);
        }
    }
}
