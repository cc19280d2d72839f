package dev.tandem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the tests that run servers of their own (scripts/servers.sh, redis-server nodes, a
 * replication pair) share: where the checkout is, how to clear a server's data directory, how to
 * run a command with a time limit, and how to stop the processes they started.
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

    /**
     * SIGKILL to {@code process}, then to what it started: the parent first, so that it forks no
     * child after the descendants were listed, then its descendants until none is left (theirs too).
     */
    private static void killWithDescendants(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        for (int round = 0; round < 10 && !descendants.isEmpty(); round++) {
            descendants.forEach(ProcessHandle::destroyForcibly);
            descendants = descendants.stream().flatMap(h -> Stream.concat(Stream.of(h), h.descendants()))
                    .filter(ProcessHandle::isAlive).distinct().toList();
        }
    }

    /** What {@link #run} saw: the exit status (-1 when it timed out), and what it printed. */
    public record Outcome(int exit, String output, boolean timedOut) {
        public boolean succeeded() {
            return !timedOut && exit == 0;
        }
    }

    /**
     * Runs {@code builder} for at most {@code timeout}, its stdout (and its stderr, unless the
     * builder sends that elsewhere) collected; past the timeout it is killed with every process it
     * started. The output goes to a file, not a pipe: reading a pipe to its end waits for every
     * process that holds it, so a hung command (or a child it left running) would keep the wait for
     * the timeout from ever starting.
     */
    public static Outcome run(ProcessBuilder builder, Duration timeout) {
        Path output = null;
        try {
            output = Files.createTempFile("tandem-command-", ".out");
            builder.redirectOutput(output.toFile());
            if (builder.redirectError() == ProcessBuilder.Redirect.PIPE) {
                builder.redirectErrorStream(true);
            }
            Process process = builder.start();
            try {
                process.getOutputStream().close();
                boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (!finished) {
                    killWithDescendants(process);
                }
                String printed = new String(Files.readAllBytes(output), StandardCharsets.UTF_8);
                return new Outcome(finished ? process.exitValue() : -1, printed, !finished);
            } catch (InterruptedException e) {
                killWithDescendants(process);
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running " + String.join(" ", builder.command()), e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", builder.command()) + " could not run", e);
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException ignored) {
                    // a temp file left behind
                }
            }
        }
    }

    /**
     * Sends {@code signal} ("STOP", "CONT") to the server whose pid file is {@code pidFile}, as
     * scripts/servers.sh writes them. SIGSTOP freezes a server as a hung host or a network that drops
     * its packets would: its connections stay open and the kernel still accepts connects, but nothing
     * answers and nothing is refused.
     */
    public static void signal(Path pidFile, String signal) {
        String pid;
        try {
            pid = Files.readString(pidFile).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Outcome sent = run(new ProcessBuilder("kill", "-" + signal, pid), Duration.ofSeconds(10));
        if (!sent.succeeded()) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " (" + pidFile + "): " + sent.output());
        }
    }
}
