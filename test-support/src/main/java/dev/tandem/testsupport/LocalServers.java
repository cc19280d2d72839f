package dev.tandem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A pair of project-local servers (MariaDB and Redis from {@code scripts/servers.sh}), driven as an
 * operator would drive them. {@link #shared()} is the pair every test uses ({@code .run/}, ports
 * 13306 and 16379 unless {@code TANDEM_DB_PORT} / {@code SPRING_DATA_REDIS_PORT} move them);
 * {@link #onFreePorts(String)} is a pair of a test's own, on free ports ({@link FreePort}) with a
 * run directory of that run's own under {@code .run/}, so an outage test can stop and restart them
 * without disturbing the others, and two test runs at once (two checkouts, two agents) share
 * neither a port nor a data directory. Either way the same binaries and the same script as
 * {@code make test}'s. No test stops the shared pair: make test runs the modules' tests side by
 * side on it.
 */
public final class LocalServers implements AutoCloseable {

    private static final LocalServers SHARED = new LocalServers(LocalProcesses.runDir(),
            port("TANDEM_DB_PORT", 13306), port("SPRING_DATA_REDIS_PORT", 16379));

    private final Path root;
    private final Path runDir;
    public final int mariadbPort;
    public final int redisPort;
    /** Servers a test stopped and has not started again, for {@link #startStopped()}. */
    private final Set<String> stopped = ConcurrentHashMap.newKeySet();

    /**
     * A pair of a test's own on two free ports, its run directory {@code .run/<name>-<MariaDB port>}
     * (a port no other running pair holds, so no other running pair's directory). Nothing is
     * started yet; {@link #close()} drops the MariaDB data (100+ MB a run) and keeps the logs.
     */
    public static LocalServers onFreePorts(String name) {
        List<Integer> ports = FreePort.pickDistinct(2);
        return new LocalServers(LocalProcesses.runDir().resolve(name + "-" + ports.get(0)), ports.get(0), ports.get(1));
    }

    private LocalServers(Path runDir, int mariadbPort, int redisPort) {
        this.root = LocalProcesses.projectRoot();
        this.runDir = runDir;
        this.mariadbPort = mariadbPort;
        this.redisPort = redisPort;
    }

    /** The servers {@code make test} started, which every test uses. */
    public static LocalServers shared() {
        return SHARED;
    }

    public void start() {
        run("start", "all");
    }

    public void start(String server) {
        run("start", server);
        stopped.remove(server);
    }

    /** Stops {@code server} ("mariadb" or "redis") and waits until its process has exited. */
    public void stop(String server) {
        stopped.add(server);
        run("stop", server);
    }

    /**
     * SIGSTOP: {@code server} ("mariadb" or "redis") is frozen ({@link LocalProcesses#signal}) until
     * {@link #resume(String)}.
     */
    public void pause(String server) {
        LocalProcesses.signal(pidFile(server), "STOP");
    }

    /** SIGCONT after {@link #pause(String)}. */
    public void resume(String server) {
        LocalProcesses.signal(pidFile(server), "CONT");
    }

    private Path pidFile(String server) {
        return runDir.resolve(server).resolve(server + ".pid");
    }

    /** After a test: starts again what it stopped and did not get to start. */
    public void startStopped() {
        for (String server : List.copyOf(stopped)) {
            start(server);
        }
    }
    /** Runs redis-cli against this Redis and returns what it printed. */
    public String redisCli(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", String.valueOf(redisPort)));
        command.addAll(List.of(args));
        LocalProcesses.Outcome cli = LocalProcesses.run(new ProcessBuilder(command), Duration.ofSeconds(10));
        if (cli.timedOut()) {
            throw new IllegalStateException("redis-cli " + String.join(" ", args) + " hung");
        }
        return cli.output();
    }

    /** Environment variables that point a service jar at these servers. */
    public java.util.Map<String, String> serviceEnvironment() {
        return java.util.Map.of(
                "TANDEM_DB_PORT", String.valueOf(mariadbPort),
                "SPRING_DATA_REDIS_PORT", String.valueOf(redisPort));
    }

    /** Stops both; a pair of a test's own also drops its MariaDB data (the shared pair is never closed). */
    @Override
    public void close() {
        run("stop", "all");
        if (this != SHARED) {
            LocalProcesses.deleteRecursively(runDir.resolve("mariadb/data"));
        }
    }

    private void run(String action, String server) {
        LocalProcesses.Outcome outcome = servers(action, server);
        if (outcome.timedOut()) {
            throw new IllegalStateException("scripts/servers.sh " + action + " " + server + " did not finish in 180 s:\n"
                    + outcome.output());
        }
        if (outcome.exit() != 0) {
            throw new IllegalStateException("scripts/servers.sh " + action + " " + server + " failed:\n" + outcome.output());
        }
    }

    /** Runs scripts/servers.sh with this pair's run directory and ports, to its end (at most 180 s). */
    private LocalProcesses.Outcome servers(String action, String server) {
        // The script's knobs are the services' own variable names, so one environment moves both.
        ProcessBuilder builder = new ProcessBuilder(List.of("bash", root.resolve("scripts/servers.sh").toString(), action, server));
        builder.environment().put("TANDEM_RUN_DIR", runDir.toString());
        builder.environment().put("TANDEM_DB_PORT", String.valueOf(mariadbPort));
        builder.environment().put("SPRING_DATA_REDIS_PORT", String.valueOf(redisPort));
        try {
            Files.createDirectories(runDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return LocalProcesses.run(builder, Duration.ofSeconds(180));
    }

    private static int port(String variable, int otherwise) {
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? otherwise : Integer.parseInt(value.trim());
    }
}
