package dev.tandem.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A MariaDB primary and a MariaDB replica of it, each a scripts/servers.sh server on a free port
 * ({@link FreePort}) and a run directory of that run's own ({@code .run/replica-primary-<port>},
 * {@code .run/replica-replica-<port>}), so that two test runs at once share neither,
 * with GTID replication set up as an operator would: a replication user on the primary,
 * {@code CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos} and {@code START SLAVE} on the replica.
 * Both are stopped by {@link #close()}, which also drops their data (the logs stay for a look).
 * Administration goes through each server's root account over its unix socket; root may write on
 * the read-only replica, the application's user may not.
 */
public final class ReplicationPair implements AutoCloseable {

    public final Server primary;
    public final Server replica;

    private ReplicationPair(Server primary, Server replica) {
        this.primary = primary;
        this.replica = replica;
    }

    /** Starts both servers and replication; stops whatever it started if that fails. */
    public static ReplicationPair start() {
        Path root = LocalProcesses.projectRoot();
        List<Integer> ports = FreePort.pickDistinct(2);
        Server primary = new Server(root, "replica-primary", ports.get(0), "--log-bin --server-id=1 --binlog-format=ROW");
        Server replica = new Server(root, "replica-replica", ports.get(1), "--server-id=2 --read-only");
        ReplicationPair pair = new ReplicationPair(primary, replica);
        try {
            primary.start();
            replica.start();
            primary.sql("CREATE USER IF NOT EXISTS 'repl'@'127.0.0.1' IDENTIFIED BY 'repl';"
                    + "GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1'");
            replica.sql("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + primary.port
                    + ", MASTER_USER='repl', MASTER_PASSWORD='repl', MASTER_USE_GTID=slave_pos,"
                    + " MASTER_CONNECT_RETRY=1; START SLAVE");
            pair.awaitRunning();
            pair.awaitCaughtUp();
            return pair;
        } catch (RuntimeException | Error e) {
            pair.close();
            throw e;
        }
    }

    /** Stops the replica applying what it receives (it keeps receiving): it lags from now on. */
    public void pauseApplying() {
        replica.sql("STOP SLAVE SQL_THREAD");
    }

    public void resumeApplying() {
        replica.sql("START SLAVE SQL_THREAD");
        awaitRunning();
    }

    /** Starts the stopped replica again on its data; replication resumes by itself. */
    public void restartReplica() {
        replica.servers("start");
        awaitRunning();
    }

    /** Waits (bounded) until the replica has applied everything the primary has committed. */
    public void awaitCaughtUp() {
        String position = primary.sql("SELECT @@GLOBAL.gtid_binlog_pos");
        String waited = replica.sql("SELECT MASTER_GTID_WAIT('" + position + "', 60)");
        if (!waited.equals("0")) {
            throw new AssertionError("the replica did not reach " + position + ": " + status());
        }
    }

    private void awaitRunning() {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            String status = status();
            if (status.contains("Slave_IO_Running: Yes") && status.contains("Slave_SQL_Running: Yes")) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("replication did not start:\n" + status);
            }
            Await.sleep(100);
        }
    }

    public String status() {
        return replica.vertical("SHOW SLAVE STATUS");
    }

    @Override
    public void close() {
        AssertionError failed = null;
        for (Server server : List.of(replica, primary)) {
            try {
                server.stop(true);
            } catch (AssertionError e) {
                failed = e;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** One scripts/servers.sh MariaDB, on its own port and run directory. */
    public static final class Server {
        public final int port;
        private final Path root;
        private final Path runDir;
        private final String extraArgs;

        Server(Path root, String name, int port, String extraArgs) {
            this.root = root;
            this.runDir = root.resolve(".run").resolve(name + "-" + port);
            this.port = port;
            this.extraArgs = extraArgs;
        }

        public void start() {
            servers("stop"); // one left running by an aborted run, before its data goes
            LocalProcesses.deleteRecursively(runDir);
            servers("start");
        }

        /** Stops the server; with {@code dropData}, its data too (100+ MB), keeping the log. */
        public void stop(boolean dropData) {
            servers("stop");
            if (dropData) {
                LocalProcesses.deleteRecursively(runDir.resolve("mariadb/data"));
            }
        }

        public void stop() {
            stop(false);
        }

        /** SIGSTOP: the server is frozen ({@link LocalProcesses#signal}) until {@link #resume()}. */
        public void pause() {
            LocalProcesses.signal(runDir.resolve("mariadb/mariadb.pid"), "STOP");
        }

        /** SIGCONT after {@link #pause()}. */
        public void resume() {
            LocalProcesses.signal(runDir.resolve("mariadb/mariadb.pid"), "CONT");
        }

        /** Runs {@code statements} as root; the output without column names, tab-separated, trimmed. */
        public String sql(String statements) {
            return run(List.of("mariadb", "--no-defaults", "--protocol=socket",
                    "--socket=" + runDir.resolve("mariadb/mariadb.sock"), "-uroot", "-N", "-B", "-e", statements), Map.of());
        }

        /** Runs one statement as root; its rows as "Column: value" lines. */
        public String vertical(String statement) {
            return run(List.of("mariadb", "--no-defaults", "--protocol=socket",
                    "--socket=" + runDir.resolve("mariadb/mariadb.sock"), "-uroot", "-E", "-e", statement), Map.of());
        }

        private void servers(String action) {
            run(List.of(root.resolve("scripts/servers.sh").toString(), action, "mariadb"), Map.of(
                    "TANDEM_RUN_DIR", runDir.toString(),
                    "TANDEM_DB_PORT", String.valueOf(port),
                    "TANDEM_MARIADB_EXTRA_ARGS", extraArgs));
        }

        private String run(List<String> command, Map<String, String> environment) {
            ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
            builder.environment().putAll(environment);
            LocalProcesses.Outcome outcome = LocalProcesses.run(builder, Duration.ofSeconds(120));
            if (!outcome.succeeded()) {
                throw new AssertionError(String.join(" ", command) + (outcome.timedOut() ? " timed out" : " failed")
                        + ":\n" + outcome.output());
            }
            return outcome.output().trim();
        }
    }
}
