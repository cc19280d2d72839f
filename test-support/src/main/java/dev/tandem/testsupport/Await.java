package dev.tandem.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded waits for something to happen: they fail with what was awaited, never assert a speed. */
public final class Await {

    private static final long POLL_MILLIS = 50;

    private Await() {
    }

    /**
     * Polls {@code condition} until it holds or {@code timeout} passes, and says which: for a test
     * that records a missed bound as one problem among others instead of failing at once.
     */
    public static boolean within(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return condition.getAsBoolean();
    }

    /** Polls {@code condition} until it holds; fails naming {@code what} when {@code timeout} passes first. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        value(what, timeout, () -> condition.getAsBoolean() ? Boolean.TRUE : null);
    }

    /** Polls {@code probe} until it returns non-null, and returns that. */
    public static <T> T value(String what, Duration timeout, Supplier<T> probe) {
        Instant deadline = Instant.now().plus(timeout);
        RuntimeException last = null;
        while (true) {
            try {
                T value = probe.get();
                if (value != null) {
                    return value;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            if (Instant.now().isAfter(deadline)) {
                AssertionError error = new AssertionError("not within " + timeout + ": " + what);
                if (last != null) {
                    error.initCause(last);
                }
                throw error;
            }
            sleep(POLL_MILLIS);
        }
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether something accepts TCP connections on 127.0.0.1:{@code port} right now. */
    public static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
