package dev.tandem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The compose balancer ({@code deploy/compose/nginx.conf}) as a process in front of service
 * instances on loopback: {@code scripts/balancer.sh render} replaces only what Docker provides
 * (the replicas' DNS names, the listen addresses, the pid file), so a test checks the file compose
 * runs, not a copy of it. Needs the nginx binary ({@code scripts/deps.sh servers} installs it).
 */
public final class LocalBalancer implements AutoCloseable {

    private static final Duration START_BOUND = Duration.ofSeconds(20);
    private static final String LOG = "logs/nginx.log";

    /** The balancer's REST and gRPC ports, which clients use instead of the instances'. */
    public final int restPort;
    public final int grpcPort;
    private final Path dir;
    private final Process nginx;

    private LocalBalancer(int restPort, int grpcPort, Path dir, Process nginx) {
        this.restPort = restPort;
        this.grpcPort = grpcPort;
        this.dir = dir;
        this.nginx = nginx;
    }

    /**
     * Starts the balancer in front of one REST and one gRPC instance; {@code restInFlight} replaces
     * the file's REST in-flight limit (null keeps it). Returns once it answers its health check.
     */
    public static LocalBalancer start(int restUpstream, int grpcUpstream, Integer restInFlight) {
        int restPort = FreePort.pick();
        int grpcPort = FreePort.pick();
        Path root = LocalProcesses.projectRoot();
        Path dir;
        try {
            // .run/ is made by whatever starts first; a fresh worktree running only this test has none yet.
            dir = Files.createTempDirectory(Files.createDirectories(root.resolve(".run")), "balancer-");
        } catch (IOException e) {
            throw new UncheckedIOException("no directory for the balancer under .run/", e);
        }
        ProcessBuilder render = new ProcessBuilder(List.of(root.resolve("scripts/balancer.sh").toString(), "render", dir.toString()))
                .redirectErrorStream(true);
        render.environment().putAll(Map.of(
                "TANDEM_BALANCER_REST_UPSTREAM", "127.0.0.1:" + restUpstream,
                "TANDEM_BALANCER_GRPC_UPSTREAM", "127.0.0.1:" + grpcUpstream,
                "TANDEM_BALANCER_REST_PORT", String.valueOf(restPort),
                "TANDEM_BALANCER_GRPC_PORT", String.valueOf(grpcPort),
                "TANDEM_BALANCER_WORKERS", "1"));
        if (restInFlight != null) {
            render.environment().put("TANDEM_BALANCER_REST_IN_FLIGHT", String.valueOf(restInFlight));
        }
        run(render, "scripts/balancer.sh render");
        Process nginx;
        try {
            // -e stderr: what nginx says before it has read the file goes where the file's own
            // error_log (stderr) sends the rest, so one log has all of it
            nginx = new ProcessBuilder(List.of("nginx", "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString(),
                    "-e", "stderr", "-g", "daemon off;"))
                    .redirectErrorStream(true).redirectOutput(dir.resolve(LOG).toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run nginx (scripts/deps.sh servers installs it)", e);
        }
        LocalBalancer balancer = new LocalBalancer(restPort, grpcPort, dir, nginx);
        if (!Await.within(START_BOUND, () -> !nginx.isAlive() || (Await.accepts(restPort) && Await.accepts(grpcPort)))
                || !nginx.isAlive()) {
            String why = balancer.log();
            balancer.close();
            throw new IllegalStateException("nginx did not start within " + START_BOUND.toSeconds() + " s; its log:\n" + why);
        }
        return balancer;
    }

    /** All nginx logged: its start, and the errors the file's error_log lets through (refusals are
     *  logged below its level). */
    public String log() {
        try {
            Path log = dir.resolve(LOG);
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "cannot read the log: " + e;
        }
    }

    @Override
    public void close() {
        LocalProcesses.stopAll(List.of(nginx));
        LocalProcesses.deleteRecursively(dir);
    }

    private static void run(ProcessBuilder builder, String what) {
        LocalProcesses.Outcome outcome = LocalProcesses.run(builder, Duration.ofSeconds(60));
        if (!outcome.succeeded()) {
            throw new IllegalStateException(what + (outcome.timedOut() ? " timed out" : " failed") + ":\n" + outcome.output());
        }
    }

}
