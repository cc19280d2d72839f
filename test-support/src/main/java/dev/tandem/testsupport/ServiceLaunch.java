package dev.tandem.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a test starts a service jar: as {@code make run} starts it ({@code scripts/jar-launch.sh}),
 * from the jar's extracted layout and, on JDK 25 or newer, with an ahead-of-time cache of its loaded
 * and linked classes recorded by one training run; the same classes as {@code java -jar service.jar}.
 *
 * <p>Why: the system tests start 40-odd JVMs, several at once, on two cores. Measured on one such
 * machine, one start to a refreshed context cost 19-23 s of CPU from the executable jar (its nested
 * jars are read through Boot's own class loader), 11-12 s extracted and ~6 s extracted with the
 * cache. The script keeps both next to the jar while it is unchanged, so the tests, {@code make run}
 * and the bench share one training run per built jar; when the training run fails (say the servers
 * are not running) the jar starts extracted, without the cache, and the script says so on stderr:
 * the cache changes how fast a JVM starts, never what the service does.
 */
final class ServiceLaunch {

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

    /** scripts/jar-launch.sh's answer for {@code jar}: the arguments after the JVM flags, one per line. */
    private static List<String> prepare(Path jar) {
        Path script = script(jar);
        ProcessBuilder builder = new ProcessBuilder(script.toString(), jar.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("JAVA", java());
        LocalProcesses.Outcome outcome = LocalProcesses.run(builder, Duration.ofMinutes(10));
        if (!outcome.succeeded()) {
            throw new IllegalStateException(script + " " + jar + (outcome.timedOut() ? " timed out: " : " failed: ") + outcome.output());
        }
        return outcome.output().lines().filter(line -> !line.isBlank()).toList();
    }

    /** scripts/jar-launch.sh of the repository the jar was built in (its module's target/ is two levels down). */
    private static Path script(Path jar) {
        for (Path dir = jar.getParent(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve("scripts/jar-launch.sh");
            if (Files.isExecutable(script)) {
                return script;
            }
        }
        throw new IllegalStateException("no scripts/jar-launch.sh above " + jar);
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }
}
