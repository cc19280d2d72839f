package dev.tandem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One service jar running as a real process, as {@code make run} runs it: same classes, same JVM,
 * configured only through environment variables (started from the jar's extracted layout with a
 * class cache, see {@link ServiceLaunch}). Its output goes to a log file under
 * target/service-logs so a failing test can be diagnosed.
 */
public final class ServiceProcess implements AutoCloseable {

    /**
     * A bound on one start, not a speed: one JVM starts in 5-8 s here (20 s before {@link ServiceLaunch}),
     * but five or six started at once on two cores shared with other builds took 90-140 s
     * (ThreeInstancesCoherenceTest, before it).
     */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(240);

    /** How much of its log {@link #diagnosis()} quotes. */
    private static final int DIAGNOSIS_LINES = 30;

    /** Names started by this JVM: a second start of the same name (a restart) appends to its log. */
    private static final Set<String> LOGS_STARTED = ConcurrentHashMap.newKeySet();

    private final String name;
    private final Process process;
    private final Path log;
    private final int healthPort;

    /**
     * Kills the service if the test JVM exits before {@link #close()} (a test killed by a timeout,
     * make test ending its stages on Ctrl-C): it would otherwise keep its ports and go on following
     * the log and relaying on the servers the next run uses.
     */
    private final Thread shutdownHook;

    private ServiceProcess(String name, Process process, Path log, int healthPort) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.healthPort = healthPort;
        this.shutdownHook = new Thread(process::destroyForcibly, "stop-" + name);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts {@code jar} with {@code env} and waits until its actuator health on {@code healthPort} is UP. */
    public static ServiceProcess start(String name, String jarProperty, int healthPort, Map<String, String> env) {
        Path jar = Path.of(System.getProperty(jarProperty, "missing"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(name + " jar not found at " + jar
                    + "; build it first (make test runs ./mvnw verify, which packages the services before this module)");
        }
        Path logs = Path.of(System.getProperty("tandem.logs.dir", "target/service-logs"));
        try {
            Files.createDirectories(logs);
            Path log = logs.resolve(name + ".log");
            if (LOGS_STARTED.add(name)) {
                Files.deleteIfExists(log);
            }
            Files.writeString(log, "==== " + Instant.now() + " starting " + name + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            ProcessBuilder builder = new ProcessBuilder(ServiceLaunch.command(jar, List.of("-Xmx512m", "-XX:TieredStopAtLevel=1")))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            Map<String, String> environment = new LinkedHashMap<>(env);
            environment.putIfAbsent("TANDEM_DB_NAME", System.getProperty("tandem.test.db-name", "tandem_test_system"));
            builder.environment().putAll(environment);
            ServiceProcess service = new ServiceProcess(name, builder.start(), log, healthPort);
            service.awaitHealthy();
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitHealthy() {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/actuator/health"))
                .timeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        String someoneElse = "";
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " while starting"
                        + someoneElse + "; see " + log);
            }
            try {
                HttpResponse<String> response = client.send(health, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && response.body().contains("\"UP\"")) {
                    // Only this process's answer counts (see ListeningSockets): another one's keeps
                    // us waiting until this one binds the port or, finding it taken, exits.
                    if (answeredItself()) {
                        return;
                    }
                    someoneElse = " (another process answered health on port " + healthPort + ")";
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            Await.sleep(250);
        }
        close();
        throw new IllegalStateException(name + " was not healthy within " + START_TIMEOUT + someoneElse + "; see " + log);
    }

    /**
     * Whether the socket listening on the health port is this process's and not this JVM's: a
     * process just spawned still holds its parent's descriptors until it has closed them and
     * exec'd java, so a server of this JVM on the port (a test's proxy) would look like its own.
     */
    private boolean answeredItself() {
        return ListeningSockets.ownedBy(process.pid(), healthPort).orElse(true)
                && !ListeningSockets.ownedBy(ProcessHandle.current().pid(), healthPort).orElse(false);
    }

    /** Sends SIGTERM, as an orchestrator does to stop an instance, and returns at once. */
    public void terminate() {
        process.destroy();
    }

    /** Waits for the process to exit and returns its status; fails when it is still running after {@code timeout}. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " still running " + timeout + " after it was asked to stop; see " + log);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGKILL, as a crash or the OOM killer would: no shutdown hook, nothing finished. Waits for the exit. */
    public void kill() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** SIGSTOP: the process is frozen (its threads, its follower, its timers) until {@link #resume()}. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}; nothing when it runs. */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        LocalProcesses.Outcome sent = LocalProcesses.run(
                new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())), Duration.ofSeconds(10));
        if (!sent.succeeded() && process.isAlive()) {
            throw new IllegalStateException("kill -" + name + " " + this.name + ": " + sent.output());
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /**
     * For a failure message: whether the process still runs (or how it exited) and the last lines
     * of its log, without stack frames. A CI machine's files are gone after the run, so a test
     * whose service misbehaved says there what the service saw.
     */
    public String diagnosis() {
        String state = process.isAlive() ? "still running" : "exited with " + process.exitValue();
        List<String> lines;
        try {
            // Decoded leniently: a log cut mid-character is still worth reading.
            lines = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.startsWith("\tat ") && !line.startsWith("WARNING: "))
                    .toList();
        } catch (IOException e) {
            return name + " " + state + "; its log " + log + " could not be read: " + e;
        }
        List<String> tail = lines.subList(Math.max(0, lines.size() - DIAGNOSIS_LINES), lines.size());
        return name + " " + state + "; the last " + tail.size() + " lines of " + log + " (stack frames left out):\n"
                + String.join("\n", tail);
    }

    /** SIGTERM, so the service shuts down gracefully as it would under an orchestrator. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is exiting: the hook runs, and finds the process gone.
        }
    }
}
