package dev.tandem.testsupport;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server processes one test fixture started (Redis nodes, sentinels), by port: stopped at
 * {@link #close()}, or when the test JVM exits if the fixture never got to close (a test killed by
 * a timeout), so that no server outlives the run and holds its ports against the next one.
 */
final class ProcessGroup implements AutoCloseable {

    private final Map<Integer, Process> processes = new LinkedHashMap<>();
    private final Thread shutdownHook = new Thread(this::stopAll);

    ProcessGroup() {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    synchronized void add(int port, Process process) {
        processes.put(port, process);
    }

    /** Forgets the process on {@code port} and returns it (null when there is none). */
    synchronized Process remove(int port) {
        return processes.remove(port);
    }

    synchronized List<Integer> ports() {
        return List.copyOf(processes.keySet());
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook is running this.
        }
    }

    private synchronized void stopAll() {
        LocalProcesses.stopAll(processes.values());
        processes.clear();
    }
}
