package dev.tandem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * How a test starts a service jar: the same classes as {@code java -jar service.jar}, started the
 * way Spring Boot recommends for production, from the jar's extracted layout
 * ({@code java -Djarmode=tools -jar service.jar extract}) and, on JDK 25 or newer, with an
 * ahead-of-time cache of its loaded and linked classes (JEP 483/514) recorded by one training run.
 *
 * <p>Why: the system tests start 40-odd JVMs, several at once, on two cores. Measured on one such
 * machine, one start to a refreshed context cost 19-23 s of CPU from the executable jar (its nested
 * jars are read through Boot's own class loader), 11-12 s extracted and ~6 s extracted with the
 * cache. The extracted jar and the cache are built once per service jar and kept under
 * {@code target/service-launch} while the jar is unchanged; the JVM itself refuses a cache whose
 * class path changed (it then starts without it, as a plain extracted jar would).
 *
 * <p>The training run starts the service against the shared test servers (the defaults, as
 * {@code make run} uses them) and exits once its context is refreshed ({@code spring.context.exit=
 * onRefresh}), before any port is bound. When it fails (say those servers are not running), the
 * tests go on without the cache and say so on stderr: the cache changes how fast a JVM starts,
 * never what the service does.
 */
final class ServiceLaunch {

    /** JEP 514's one-step {@code -XX:AOTCacheOutput} came with JDK 25; older JDKs get the extracted jar only. */
    private static final int AOT_CACHE_SINCE = 25;

    private static final Map<Path, List<String>> PREPARED = new ConcurrentHashMap<>();

    private ServiceLaunch() {
    }

    /** The command that starts {@code jar} with {@code jvmFlags}, preparing its layout and cache on first use. */
    static List<String> command(Path jar, List<String> jvmFlags) {
        List<String> launch = PREPARED.computeIfAbsent(jar.toAbsolutePath().normalize(), ServiceLaunch::prepare);
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(jvmFlags);
        command.addAll(launch);
        return command;
    }

    private static List<String> prepare(Path jar) {
        String name = jar.getFileName().toString().replaceFirst("\\.jar$", "");
        Path dir = Path.of(System.getProperty("tandem.launch.dir", "target/service-launch")).resolve(name).toAbsolutePath();
        Path extracted = dir.resolve("extracted").resolve(jar.getFileName());
        Path cache = dir.resolve(name + ".aot");
        Path stamp = dir.resolve("source.stamp");
        try {
            String source = jar + " " + Files.size(jar) + " " + Files.getLastModifiedTime(jar).toMillis() + " " + Runtime.version();
            boolean current = Files.isRegularFile(stamp) && Files.readString(stamp).equals(source) && Files.isRegularFile(extracted);
            if (!current) {
                LocalProcesses.deleteRecursively(dir);
                Files.createDirectories(dir);
                List<String> extract = List.of(java(), "-Djarmode=tools", "-jar", jar.toString(),
                        "extract", "--destination", extracted.getParent().toString());
                if (run(dir.resolve("extract.log"), extract, Map.of()) != 0) {
                    throw new IllegalStateException(String.join(" ", extract) + " failed; see " + dir.resolve("extract.log"));
                }
                if (Runtime.version().feature() >= AOT_CACHE_SINCE) {
                    train(extracted, cache, dir.resolve("training.log"));
                }
                Files.writeString(stamp, source);
            }
            if (Files.isRegularFile(cache)) {
                return List.of("-XX:AOTCache=" + cache, "-jar", extracted.toString());
            }
            return List.of("-jar", extracted.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void train(Path extracted, Path cache, Path log) throws IOException {
        List<String> command = List.of(java(), "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:AOTCacheOutput=" + cache,
                "-Dspring.context.exit=onRefresh", "-jar", extracted.toString());
        Map<String, String> env = Map.of(
                "TANDEM_DB_NAME", System.getProperty("tandem.test.db-name", "tandem_test_system"),
                "SERVER_PORT", "0", "SPRING_GRPC_SERVER_PORT", "0", "MANAGEMENT_SERVER_PORT", "0");
        int exit = run(log, command, env);
        if (exit != 0 || !Files.isRegularFile(cache)) {
            Files.deleteIfExists(cache);
            System.err.println("ServiceLaunch: the AOT training run of " + extracted.getFileName() + " exited with " + exit
                    + " (see " + log + "); services start without the cache, only slower");
        }
    }

    private static int run(Path log, List<String> command, Map<String, String> env) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        try {
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " still running after 5 minutes; see " + log);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return process.exitValue();
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }
}
