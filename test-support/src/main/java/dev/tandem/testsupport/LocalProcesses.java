package dev.tandem.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the tests that run servers of their own (scripts/servers.sh, redis-server nodes, a
 * replication pair) share: where the checkout is, how to clear a server's data directory, and how
 * to stop the processes they started.
 */
public final class LocalProcesses {

    private LocalProcesses() {
    }

    /** The checkout: the nearest directory above the working directory that has scripts/servers.sh. */
    public static Path projectRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("scripts/servers.sh"))) {
                return p;
            }
        }
        throw new AssertionError("scripts/servers.sh not found above " + Path.of("").toAbsolutePath());
    }

    /** {@code .run/} of the checkout, where every project-local server keeps its data. */
    public static Path runDir() {
        return projectRoot().resolve(".run");
    }

    /** Deletes {@code dir} and everything under it; nothing to do when it does not exist. */
    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot clear " + dir, e);
        }
    }

    /** SIGTERM to each, then up to 5 s for each to exit before SIGKILL. */
    public static void stopAll(Collection<Process> processes) {
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
