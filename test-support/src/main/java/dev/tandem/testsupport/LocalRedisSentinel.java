package dev.tandem.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A real Redis Sentinel deployment on loopback, from the same redis-server binary: one master, one
 * replica and three sentinels watching them (quorum 2). The processes are this JVM's children
 * (data and the sentinels' rewritten configuration under {@code .run/<name>/<port>}), stopped by
 * {@link #close()} or, should the JVM exit first, by a shutdown hook.
 */
public final class LocalRedisSentinel implements AutoCloseable {

    public static final String MASTER_NAME = "tandem";

    private final Path dir;
    private final int masterPort;
    private final int replicaPort;
    private final List<Integer> sentinelPorts;
    private final ProcessGroup processes = new ProcessGroup();

    private LocalRedisSentinel(Path dir, List<Integer> ports) {
        this.dir = dir;
        this.masterPort = ports.get(0);
        this.replicaPort = ports.get(1);
        this.sentinelPorts = List.copyOf(ports.subList(2, 5));
    }

    /** The master, its replica and the three sentinels, each on a free port ({@link FreePort}). */
    public static LocalRedisSentinel start(String name) {
        LocalRedisSentinel deployment = new LocalRedisSentinel(LocalProcesses.runDir().resolve(name), FreePort.pickDistinct(5));
        try {
            deployment.create();
            return deployment;
        } catch (RuntimeException | Error e) {
            deployment.close();
            throw e;
        }
    }

    private void create() {
        List<Integer> all = new ArrayList<>(List.of(masterPort, replicaPort));
        all.addAll(sentinelPorts);
        for (int port : all) {
            // Free when picked: a directory left under its name is an earlier run's.
            LocalProcesses.deleteRecursively(dir.resolve(Integer.toString(port)));
        }
        startServer(masterPort);
        startServer(replicaPort, "--replicaof", "127.0.0.1", Integer.toString(masterPort));
        for (int port : sentinelPorts) {
            startSentinel(port);
        }
        boolean ready = Await.within(Duration.ofSeconds(30), () -> sentinelPorts.stream().allMatch(p -> {
            String master = LocalRedisCluster.cliOrEmpty(p, "SENTINEL", "MASTER", MASTER_NAME);
            return master.contains("num-slaves\n1\n") && master.contains("num-other-sentinels\n2\n")
                    && LocalRedisCluster.cliOrEmpty(replicaPort, "INFO", "replication").contains("master_link_status:up");
        }));
        if (!ready) {
            throw new AssertionError("the sentinels did not see the master, its replica and each other:\n"
                    + LocalRedisCluster.cliOrEmpty(sentinelPorts.getFirst(), "SENTINEL", "MASTER", MASTER_NAME));
        }
    }

    private void startServer(int port, String... extra) {
        Path nodeDir = nodeDir(port);
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--dir", nodeDir.toString(), "--save", "", "--appendonly", "no",
                "--logfile", nodeDir.resolve("redis.log").toString()));
        command.addAll(List.of(extra));
        launch(port, command);
    }

    private void startSentinel(int port) {
        Path nodeDir = nodeDir(port);
        Path config = nodeDir.resolve("sentinel.conf");
        try {
            // Sentinel rewrites its configuration file with what it learns, so each has its own.
            Files.writeString(config, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + nodeDir,
                    "logfile " + nodeDir.resolve("sentinel.log"),
                    "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " 2",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                    "sentinel failover-timeout " + MASTER_NAME + " 10000",
                    "sentinel parallel-syncs " + MASTER_NAME + " 1", ""));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        launch(port, List.of("redis-server", config.toString(), "--sentinel"));
    }

    private void launch(int port, List<String> command) {
        Path nodeDir = nodeDir(port);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(nodeDir.resolve("stdout.log").toFile()).start();
            processes.add(port, p);
        } catch (IOException e) {
            throw new AssertionError("could not start " + command, e);
        }
        if (!Await.within(Duration.ofSeconds(10), () -> LocalRedisCluster.ping(port))) {
            throw new AssertionError(String.join(" ", command) + " did not start");
        }
    }

    private Path nodeDir(int port) {
        Path nodeDir = dir.resolve(Integer.toString(port));
        try {
            Files.createDirectories(nodeDir);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return nodeDir;
    }

    /** spring.data.redis.sentinel.nodes */
    public String sentinelNodesProperty() {
        return sentinelPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The port of the master the sentinels name now. */
    public int currentMasterPort() {
        String[] addr = LocalRedisCluster.cli(sentinelPorts.getFirst(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
                .trim().split("\n");
        return Integer.parseInt(addr[addr.length - 1].trim());
    }

    /** SENTINEL FAILOVER: the replica is promoted and the old master reconfigured as its replica. */
    public void failover() {
        LocalRedisCluster.cli(sentinelPorts.getFirst(), "SENTINEL", "FAILOVER", MASTER_NAME);
    }

    /** Whether the node on {@code port} is a master (ROLE). */
    public static boolean isMaster(int port) {
        return LocalRedisCluster.cliOrEmpty(port, "ROLE").startsWith("master");
    }

    @Override
    public void close() {
        processes.close();
    }
}
