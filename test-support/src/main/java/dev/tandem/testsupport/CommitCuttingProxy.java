package dev.tandem.testsupport;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of the project-local MariaDB that can lose the answer to a COMMIT: armed,
 * it forwards the next COMMIT of a transaction that changed rows to the server, waits for the
 * server's answer (so the transaction is committed), and then closes both sides instead of passing
 * the answer on. The client sees its connection die during the commit — the ambiguous outcome that
 * Connector/J reports as a communications failure — while the database has applied the write. Or
 * it holds the COMMIT itself ({@link #holdNextWriteCommit()}), so that the write is applied only
 * after its client saw the connection die.
 *
 * <p>It reads just enough of the MySQL protocol for that: packets (3-byte length, sequence id),
 * and in the client's commands (sequence id 0) the text of COM_QUERY. Tandem's JDBC URL asks for
 * neither TLS nor compression and Connector/J prepares statements on the client, so every
 * statement, COMMIT included, is a readable COM_QUERY.
 */
public final class CommitCuttingProxy implements Closeable {

    private static final int COM_QUERY = 0x03;

    private final ServerSocket listener;
    private final int serverPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicBoolean holdArmed = new AtomicBoolean();
    private final AtomicInteger commitsCut = new AtomicInteger();
    /** A held COMMIT: its connection's socket to the server, and the packet not yet forwarded. */
    private volatile Socket heldServer;
    private volatile byte[] heldPacket;

    private CommitCuttingProxy(ServerSocket listener, int serverPort) {
        this.listener = listener;
        this.serverPort = serverPort;
    }

    /** Listens on a free loopback port and forwards every connection to 127.0.0.1:{@code serverPort}. */
    public static CommitCuttingProxy start(int serverPort) throws IOException {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        CommitCuttingProxy proxy = new CommitCuttingProxy(listener, serverPort);
        Thread.ofPlatform().daemon().name("commit-cutting-proxy").start(proxy::accept);
        return proxy;
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The next COMMIT of a transaction that inserted, updated or deleted rows loses its answer. */
    public void cutNextWriteCommit() {
        armed.set(true);
    }

    /**
     * The next COMMIT of a transaction that changed rows is held: the client's side of its connection
     * is closed at once (it sees the connection die during the commit), while the server's side stays
     * open with the transaction uncommitted until {@link #releaseHeldCommit()} forwards the COMMIT. So
     * the write becomes visible after its client gave it up for lost — as when the server is still
     * committing as the connection dies.
     */
    public void holdNextWriteCommit() {
        holdArmed.set(true);
    }

    /** Forwards the held COMMIT to the server, which commits it (its answer goes nowhere). */
    public void releaseHeldCommit() throws IOException {
        Socket server = heldServer;
        byte[] packet = heldPacket;
        if (server == null || packet == null) {
            throw new IllegalStateException("no COMMIT is held");
        }
        heldServer = null;
        heldPacket = null;
        OutputStream out = server.getOutputStream();
        out.write(packet);
        out.flush();
    }

    /** How many commits have lost their answer so far. */
    public int commitsCut() {
        return commitsCut.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), serverPort), 3000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                Connection connection = new Connection(client, server);
                Thread.ofPlatform().daemon().name("proxy-to-server").start(connection::clientToServer);
                Thread.ofPlatform().daemon().name("proxy-to-client").start(connection::serverToClient);
            } catch (IOException e) {
                // Closed, or one connection failed to open: the client sees its connect fail.
            }
        }
    }

    /** One client connection and its connection to the server. */
    private final class Connection {
        private final Socket client;
        private final Socket server;
        /** Whether the transaction running now has sent an INSERT, UPDATE or DELETE. */
        private boolean wrote;
        /** Set before a COMMIT to be cut is forwarded: whatever the server answers next is dropped. */
        private volatile boolean dropAnswer;

        Connection(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void clientToServer() {
            boolean held = false;
            try (InputStream in = client.getInputStream()) {
                OutputStream out = server.getOutputStream();
                byte[] header = new byte[4];
                while (true) {
                    if (!readFully(in, header)) {
                        break;
                    }
                    int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
                    byte[] payload = new byte[length];
                    if (!readFully(in, payload)) {
                        break;
                    }
                    if (header[3] == 0 && length > 0 && payload[0] == COM_QUERY) {
                        String sql = new String(payload, 1, length - 1, StandardCharsets.UTF_8).strip()
                                .toLowerCase(Locale.ROOT);
                        if (sql.startsWith("insert") || sql.startsWith("update") || sql.startsWith("delete")) {
                            wrote = true;
                        } else if (sql.equals("commit") || sql.equals("rollback")) {
                            if (sql.equals("commit") && wrote && holdArmed.compareAndSet(true, false)) {
                                byte[] packet = new byte[4 + length];
                                System.arraycopy(header, 0, packet, 0, 4);
                                System.arraycopy(payload, 0, packet, 4, length);
                                heldPacket = packet;
                                heldServer = server;
                                held = true;
                                commitsCut.incrementAndGet();
                                break;
                            }
                            if (sql.equals("commit") && wrote && armed.compareAndSet(true, false)) {
                                dropAnswer = true;
                            }
                            wrote = false;
                        }
                    }
                    out.write(header);
                    out.write(payload);
                    out.flush();
                }
            } catch (IOException e) {
                // Either side went away.
            } finally {
                if (held) {
                    // the server's side waits for releaseHeldCommit; its answer then finds the
                    // client gone, and serverToClient closes it
                    close(client);
                } else {
                    closeBoth();
                }
            }
        }

        void serverToClient() {
            try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
                byte[] buffer = new byte[16 * 1024];
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (dropAnswer) {
                        // The server has committed and answered; the client never hears it.
                        commitsCut.incrementAndGet();
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // Either side went away.
            } finally {
                closeBoth();
            }
        }

        private void closeBoth() {
            close(client);
            close(server);
        }
    }

    private void close(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // Closing anyway.
        }
    }

    private static boolean readFully(InputStream in, byte[] into) throws IOException {
        int read = 0;
        while (read < into.length) {
            int n = in.read(into, read, into.length - read);
            if (n < 0) {
                return false;
            }
            read += n;
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : Set.copyOf(sockets)) {
            close(socket);
        }
    }
}
