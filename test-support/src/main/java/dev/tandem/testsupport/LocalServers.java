package dev.tandem.system;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A pair of project-local servers (MariaDB and Redis from {@code scripts/servers.sh}) of a test's
 * own: their own run directory under {@code .run/} and their own loopback ports, so an outage test
 * can stop and restart them without disturbing the servers every other test uses (13306, 16379).
 * They are the same binaries and the same start/stop script as {@code make test}'s.
 */
final class LocalServers implements AutoCloseable {

    private final Path root;
    private final Path runDir;
    final int mariadbPort;
    final int redisPort;

    /** {@code name} picks the run directory, {@code .run/<name>}. Nothing is started yet. */
    LocalServers(String name, int mariadbPort, int redisPort) {
        this.root = projectRoot();
        this.runDir = root.resolve(".run").resolve(name);
        this.mariadbPort = mariadbPort;
        this.redisPort = redisPort;
    }

    void start() {
        run("start", "all");
    }

    void start(String server) {
        run("start", server);
    }

    /** Stops {@code server} ("mariadb" or "redis") and waits until its process has exited. */
    void stop(String server) {
        run("stop", server);
    }

    /** Runs redis-cli against this Redis and returns what it printed. */
    String redisCli(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", String.valueOf(redisPort)));
        command.addAll(List.of(args));
        try {
            Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(cli.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!cli.waitFor(10, TimeUnit.SECONDS)) {
                cli.destroyForcibly();
                throw new IllegalStateException("redis-cli " + String.join(" ", args) + " hung");
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Environment variables that point a service jar at these servers. */
    java.util.Map<String, String> serviceEnvironment() {
        return java.util.Map.of(
                "TANDEM_DB_PORT", String.valueOf(mariadbPort),
                "SPRING_DATA_REDIS_PORT", String.valueOf(redisPort));
    }

    @Override
    public void close() {
        run("stop", "all");
    }

    private void run(String action, String server) {
        ProcessBuilder builder = new ProcessBuilder(List.of("bash", root.resolve("scripts/servers.sh").toString(), action, server))
                .redirectErrorStream(true);
        builder.environment().put("TANDEM_RUN_DIR", runDir.toString());
        builder.environment().put("TANDEM_MARIADB_PORT", String.valueOf(mariadbPort));
        builder.environment().put("TANDEM_REDIS_PORT", String.valueOf(redisPort));
        try {
            Files.createDirectories(runDir);
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(180, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("scripts/servers.sh " + action + " " + server + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("scripts/servers.sh"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("scripts/servers.sh not found above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
