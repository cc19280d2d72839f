package dev.tandem.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster on loopback, from the same redis-server binary as the project's Redis: three
 * masters, each with one replica, created with {@code redis-cli --cluster create} as an operator
 * would. The nodes are this JVM's child processes (data under {@code .run/<name>/<port>}, no
 * persistence), so {@link #close()} — and, should the JVM exit first, a shutdown hook — stops every
 * one of them.
 */
public final class LocalRedisCluster implements AutoCloseable {

    /** Short, so that a killed master is failed over within seconds (Redis' default is 15 s). */
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(1000);

    private final Path dir;
    private final List<Integer> ports;
    private final int masters;
    private final ProcessGroup nodes = new ProcessGroup();
    /** Each node's cluster bus port, by its port; the same again when a node restarts. */
    private final Map<Integer, Integer> busPorts = new HashMap<>();

    private LocalRedisCluster(Path dir, List<Integer> ports, int masters) {
        this.dir = dir;
        this.ports = ports;
        this.masters = masters;
    }

    /**
     * Starts {@code masters} masters and as many replicas on free ports ({@link FreePort}), each
     * node's cluster bus on a free port too (not Redis' port + 10000, which may fall in the kernel's
     * ephemeral range), and waits until the cluster is formed and every node says ok.
     */
    public static LocalRedisCluster start(String name, int masters) {
        List<Integer> picked = FreePort.pickDistinct(masters * 4);
        List<Integer> ports = picked.subList(0, masters * 2);
        LocalRedisCluster cluster = new LocalRedisCluster(LocalProcesses.runDir().resolve(name), ports, masters);
        for (int i = 0; i < ports.size(); i++) {
            cluster.busPorts.put(ports.get(i), picked.get(ports.size() + i));
        }
        try {
            cluster.create();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void create() {
        for (int port : ports) {
            // Free when picked: a directory left under its name is an earlier run's.
            LocalProcesses.deleteRecursively(dir.resolve(Integer.toString(port)));
            startNode(port);
        }
        for (int port : ports) {
            if (!Await.within(Duration.ofSeconds(10), () -> ping(port))) {
                throw new AssertionError("redis-server on " + port + " did not start: " + log(port));
            }
        }
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        ports.forEach(p -> command.add("127.0.0.1:" + p));
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        run(Duration.ofSeconds(60), command);
        awaitHealthy(Duration.ofSeconds(30));
    }

    private void startNode(int port) {
        Path nodeDir = dir.resolve(Integer.toString(port));
        try {
            Files.createDirectories(nodeDir);
            Process p = new ProcessBuilder("redis-server",
                    "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--cluster-enabled", "yes", "--cluster-port", Integer.toString(busPorts.get(port)),
                    "--cluster-config-file", nodeDir.resolve("nodes.conf").toString(),
                    "--cluster-node-timeout", Long.toString(NODE_TIMEOUT.toMillis()),
                    "--dir", nodeDir.toString(),
                    "--save", "", "--appendonly", "no",
                    "--logfile", nodeDir.resolve("redis.log").toString())
                    .redirectErrorStream(true).redirectOutput(nodeDir.resolve("stdout.log").toFile()).start();
            nodes.add(port, p);
        } catch (IOException e) {
            throw new AssertionError("could not start redis-server on " + port, e);
        }
    }

    /**
     * Waits until every running node reports cluster_state:ok and redis-cli finds all slots covered
     * and every node agreeing on them.
     */
    public void awaitHealthy(Duration timeout) {
        boolean ok = Await.within(timeout, () -> {
            for (int port : runningPorts()) {
                if (!cli(port, "CLUSTER", "INFO").contains("cluster_state:ok")) {
                    return false;
                }
            }
            return check(runningPorts().getFirst());
        });
        if (!ok) {
            throw new AssertionError("the Redis Cluster is not healthy:\n" + cli(runningPorts().getFirst(), "CLUSTER", "NODES"));
        }
    }

    private boolean check(int port) {
        try {
            run(Duration.ofSeconds(20), List.of("redis-cli", "--cluster", "check", "127.0.0.1:" + port));
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }

    /** spring.data.redis.cluster.nodes: the masters it was created with (the rest is discovered). */
    public String nodesProperty() {
        return ports.subList(0, masters).stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The port of the master that serves {@code key}'s slot now. */
    public int masterOf(String key) {
        int any = runningPorts().getFirst();
        long slot = Long.parseLong(cli(any, "CLUSTER", "KEYSLOT", key).trim());
        for (String line : cli(any, "CLUSTER", "NODES").split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                String[] range = f[i].split("-");
                if (range[0].startsWith("[")) {
                    continue;
                }
                long from = Long.parseLong(range[0]);
                long to = range.length > 1 ? Long.parseLong(range[1]) : from;
                if (slot >= from && slot <= to) {
                    return Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
                }
            }
        }
        throw new AssertionError("no master serves slot " + slot + ":\n" + cli(any, "CLUSTER", "NODES"));
    }

    /** Whether the node on {@code port} is a master. */
    public boolean isMaster(int port) {
        return cli(port, "ROLE").startsWith("master");
    }

    /** The port of a running replica of the master on {@code masterPort}. */
    public int replicaOf(int masterPort) {
        String masterId = cli(masterPort, "CLUSTER", "MYID").trim();
        for (String line : cli(masterPort, "CLUSTER", "NODES").split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length >= 4 && f[3].equals(masterId) && f[2].contains("slave") && !f[2].contains("fail")) {
                return Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
            }
        }
        throw new AssertionError("master " + masterPort + " has no running replica:\n" + cli(masterPort, "CLUSTER", "NODES"));
    }

    /**
     * A manual failover ({@code CLUSTER FAILOVER} on the replica): the replica first catches up with
     * its master, so nothing the master holds is lost, then the two swap roles. Returns once the
     * replica says it is the master and the cluster is healthy.
     */
    public void failOverTo(int replicaPort) {
        cli(replicaPort, "CLUSTER", "FAILOVER");
        if (!Await.within(Duration.ofSeconds(30), () -> isMaster(replicaPort))) {
            throw new AssertionError("replica " + replicaPort + " did not take over:\n" + cli(replicaPort, "CLUSTER", "NODES"));
        }
        awaitHealthy(Duration.ofSeconds(30));
    }

    /** SIGKILL: the node vanishes without a word, as a crashed machine would. */
    public void kill(int port) {
        Process p = nodes.remove(port);
        if (p != null) {
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Starts a killed node again with its cluster configuration (and no data). */
    public void restart(int port) {
        startNode(port);
        if (!Await.within(Duration.ofSeconds(10), () -> ping(port))) {
            throw new AssertionError("redis-server on " + port + " did not restart: " + log(port));
        }
    }

    public List<Integer> runningPorts() {
        return nodes.ports();
    }

    public static boolean ping(int port) {
        try {
            return run(Duration.ofSeconds(5), List.of("redis-cli", "-p", Integer.toString(port), "PING")).contains("PONG");
        } catch (AssertionError e) {
            return false;
        }
    }

    /** One redis-cli command against the node on {@code port}; its output. */
    public static String cli(int port, String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return run(Duration.ofSeconds(10), command);
    }

    /** Like {@link #cli}, but "" when the node does not answer (while it starts or fails over). */
    public static String cliOrEmpty(int port, String... args) {
        try {
            return cli(port, args);
        } catch (AssertionError e) {
            return "";
        }
    }

    private static String run(Duration timeout, List<String> command) {
        LocalProcesses.Outcome outcome = LocalProcesses.run(new ProcessBuilder(command), timeout);
        if (outcome.timedOut()) {
            throw new AssertionError(String.join(" ", command) + " timed out");
        }
        if (outcome.exit() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + outcome.exit() + ":\n" + outcome.output());
        }
        return outcome.output();
    }


    private String log(int port) {
        try {
            return Files.readString(dir.resolve(Integer.toString(port)).resolve("redis.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        nodes.close();
    }
}
