package dev.tandem.system;

import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.ListeningSockets;
import dev.tandem.testsupport.LocalProcesses;
import dev.tandem.testsupport.LocalServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code make run} starts the jars through scripts/services.sh, while the other system tests and the
 * bench start them themselves: this starts them through the script, with every port moved by its
 * knobs (TANDEM_REST_PORT, TANDEM_GRPC_PORT, TANDEM_GRPC_MANAGEMENT_PORT), and checks that each
 * service listens on the ports it was given, on loopback, and on nothing else. Before, the script
 * moved the gRPC service's actuator with MANAGEMENT_SERVER_PORT: the service then ran a second web
 * server for it, on every interface (Boot binds a separate management port to management.server.address,
 * not server.address), and kept its main web server on 8081, so a moved management port still
 * needed 8081 free; the tests and the bench give that port as SERVER_PORT and saw neither.
 */
class ServicesScriptTest {

    /** A bound on the script's start (its own is 180 s per service, both in parallel), not a speed. */
    private static final Duration START_BOUND = Duration.ofMinutes(5);

    @Test
    void eachServiceListensOnlyOnThePortsTheScriptGaveItOnLoopback(@TempDir Path runDir) throws IOException {
        int restPort = FreePort.pick();
        int grpcPort = FreePort.pick();
        int grpcManagementPort = FreePort.pick();
        String database = System.getProperty("tandem.test.db-name", "tandem_test_system");
        Map<String, String> environment = new HashMap<>(LocalServers.shared().serviceEnvironment());
        environment.putAll(Map.of(
                "TANDEM_RUN_DIR", runDir.toString(),
                "TANDEM_REST_PORT", String.valueOf(restPort),
                "TANDEM_GRPC_PORT", String.valueOf(grpcPort),
                "TANDEM_GRPC_MANAGEMENT_PORT", String.valueOf(grpcManagementPort),
                "TANDEM_DB_NAME", database,
                // The shared Redis: keys of this database's own, or the cache (hybrid, make run's mode)
                // would find another database's identity under the default prefix and empty that L2.
                "TANDEM_CACHE_REDIS_KEY_PREFIX", "tandem:cache:" + database + ":"));
        try {
            LocalProcesses.Outcome started = services("start", environment);
            assertThat(started.succeeded()).as("scripts/services.sh start:\n%s", started.output()).isTrue();

            assertThat(listening(runDir, "rest-service")).as("rest-service listens on")
                    .allSatisfy(address -> assertThat(address.getAddress().isLoopbackAddress()).as("%s", address).isTrue())
                    .extracting(InetSocketAddress::getPort).containsExactly(restPort);
            assertThat(listening(runDir, "grpc-service")).as("grpc-service listens on")
                    .allSatisfy(address -> assertThat(address.getAddress().isLoopbackAddress()).as("%s", address).isTrue())
                    .extracting(InetSocketAddress::getPort).containsExactlyInAnyOrder(grpcPort, grpcManagementPort);
        } finally {
            LocalProcesses.Outcome stopped = services("stop", environment);
            assertThat(stopped.succeeded()).as("scripts/services.sh stop:\n%s", stopped.output()).isTrue();
        }
    }

    private static LocalProcesses.Outcome services(String action, Map<String, String> environment) {
        ProcessBuilder builder = new ProcessBuilder(LocalProcesses.projectRoot().resolve("scripts/services.sh").toString(), action)
                .redirectErrorStream(true);
        builder.environment().putAll(environment);
        return LocalProcesses.run(builder, START_BOUND);
    }

    /** The addresses the process the script started as {@code service} listens on, from its pid file. */
    private static Set<InetSocketAddress> listening(Path runDir, String service) throws IOException {
        long pid = Long.parseLong(Files.readString(runDir.resolve("pids/" + service + ".pid")).strip());
        Optional<Set<InetSocketAddress>> addresses = ListeningSockets.addressesOf(pid);
        assumeTrue(addresses.isPresent(), "needs Linux's /proc");
        return addresses.get();
    }
}
