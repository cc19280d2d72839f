package dev.tandem.cache;

import dev.tandem.testsupport.LocalProcesses;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** The project-local servers, driven as an operator would: scripts/servers.sh and Redis commands. */
final class Servers {

    private Servers() {
    }

    /**
     * Whether this checkout's scripts/servers.sh started the Redis on 16379 (its status then says
     * so). Only then can a test stop and restart it; a Redis started by something else (another
     * checkout, a system service) is left alone and the outage tests are skipped.
     */
    static boolean ownsRedis() {
        Path root = LocalProcesses.projectRoot();
        try {
            Process p = new ProcessBuilder(root.resolve("scripts/servers.sh").toString(), "status", "redis")
                    .directory(root.toFile()).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static volatile boolean redisStopped;

    static void stopRedis() {
        redisStopped = true;
        servers("stop", "redis");
    }

    static void startRedis() {
        servers("start", "redis");
        redisStopped = false;
    }

    /** After a test: starts Redis again if a test stopped it and did not get to start it. */
    static void restartRedisIfStopped() {
        if (redisStopped) {
            startRedis();
        }
    }

    private static void servers(String action, String server) {
        Path root = LocalProcesses.projectRoot();
        try {
            Process p = new ProcessBuilder(root.resolve("scripts/servers.sh").toString(), action, server)
                    .directory(root.toFile()).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError("scripts/servers.sh " + action + " " + server + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Runs one Redis command on a connection of {@code factory} (e.g. CLIENT PAUSE, CLIENT KILL). */
    static Object redis(RedisConnectionFactory factory, String command, String... args) {
        byte[][] raw = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            raw[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        try (RedisConnection connection = factory.getConnection()) {
            return connection.execute(command, raw);
        }
    }

    /** Polls {@code condition} until it holds or {@code timeout} passes; false on timeout. */
    static boolean await(Duration timeout, BooleanSupplier condition) {
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
}
