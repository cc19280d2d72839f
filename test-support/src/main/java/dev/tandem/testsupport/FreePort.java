package dev.tandem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A loopback port nothing listens on now, for a server a test starts on a port it must name up front.
 *
 * <p>The port comes from below the kernel's ephemeral range, never from {@code bind(0)}: a port
 * {@code bind(0)} hands out is an ephemeral one, and between this pick and the server's bind every
 * outgoing connection on the machine (JDBC, Redis, HTTP clients, the other {@code make test} lane)
 * takes its local port from that same range, so one of them can land on it first ("Address already
 * in use"). Below the range only another picker or a server on a fixed port there can take it: the
 * fixed ports the other stages use in that stretch are never picked, and a random pick out of
 * thousands makes a clash between pickers rare.
 */
public final class FreePort {

    /** Above the project's fixed ports (13306, 16379, 18080-19099), below any kernel default ephemeral range. */
    private static final int LOWEST = 20_000;
    private static final int TRIES = 100;
    /**
     * Fixed ports between {@link #LOWEST} and the ephemeral range that other stages of make test
     * bind while this one runs: the README test's MariaDB and Redis (23306, 26379) and the bench's
     * smoke run (28080, 28081, 28443, 29090, 29443).
     */
    private static boolean fixedElsewhere(int port) {
        return port == 23306 || port == 26379
                || port == 28080 || port == 28081 || port == 28443 || port == 29090 || port == 29443;
    }

    private FreePort() {
    }

    public static int pick() {
        int highest = ephemeralLow() - 1;
        IOException last = null;
        for (int i = 0; i < TRIES; i++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
            if (fixedElsewhere(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                last = taken;
            }
        }
        throw new UncheckedIOException("no free loopback port in " + LOWEST + "-" + highest + " after " + TRIES + " tries", last);
    }

    /**
     * {@code count} ports as {@link #pick()} picks them, all different: for servers that are all
     * started before any of them binds (a pick is only known free until something binds it).
     */
    public static List<Integer> pickDistinct(int count) {
        Set<Integer> ports = new LinkedHashSet<>();
        while (ports.size() < count) {
            ports.add(pick());
        }
        return List.copyOf(ports);
    }

    /**
     * The first port of the kernel's ephemeral range (Linux's default when the file cannot be read,
     * or when the range starts too low to leave room below it). Read by lines: {@code Files.readString}
     * returned only the file's first character ("3") on JDK 25 here.
     */
    private static int ephemeralLow() {
        try {
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).getFirst();
            int low = Integer.parseInt(range.trim().split("\\s+")[0]);
            return low > LOWEST + 1000 ? low : 32_768;
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }
}
