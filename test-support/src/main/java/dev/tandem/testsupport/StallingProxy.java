package dev.tandem.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of one server, for one client: while stalled it forwards nothing in
 * either direction (the bytes wait, as on a network path that has stopped delivering), so that
 * client alone loses the server while every other client keeps it.
 */
public final class StallingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean stalled;
    private volatile boolean closed;

    public StallingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("stalling-proxy-accept").start(this::accept);
    }

    public int port() {
        return listener.getLocalPort();
    }

    public void stall() {
        stalled = true;
    }

    public void resume() {
        stalled = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("stalling proxy: " + e);
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread.ofPlatform().daemon().name("stalling-proxy-pump").start(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    while (stalled && !closed) {
                        Thread.sleep(5);
                    }
                    if (closed) {
                        break; // what was held while stalled is dropped, never delivered late
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // The other side went away, or the proxy closed.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        sockets.forEach(StallingProxy::closeQuietly);
    }
}
