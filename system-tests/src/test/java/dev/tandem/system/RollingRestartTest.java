package dev.tandem.system;

import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.LocalServices;
import dev.tandem.testsupport.ServiceProcess;
import dev.tandem.testsupport.TestDatabase;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling restart under steady load fails no request. Two instances of each service (four
 * processes, hybrid cache) share one MariaDB and Redis; client threads read and write on both wires
 * all along: REST through a client-side balancer that follows the instances' readiness, gRPC
 * through one round_robin channel over both addresses. Instance 1 of each service is stopped
 * (SIGTERM), waited for, started again on the same ports and waited for until the balancer uses
 * it again; then instance 2. Every request must succeed, every write answered OK must be in the
 * database, and both instances of each service must have served before and after the restarts.
 */
class RollingRestartTest {

    private static final Map<String, String> HYBRID = Map.of("TANDEM_CACHE_MODE", "hybrid");
    /** Requests each instance must answer in a phase before the test calls it served. */
    private static final long SERVED = 20;
    private static final Duration BOUND = Duration.ofSeconds(60);

    static LocalServers servers;
    static TestDatabase database;
    static final List<Integer> restPorts = List.of(FreePort.pick(), FreePort.pick());
    static final List<Integer> grpcPorts = List.of(FreePort.pick(), FreePort.pick());
    static final List<Integer> managementPorts = List.of(FreePort.pick(), FreePort.pick());
    static final ServiceProcess[] rest = new ServiceProcess[2];
    static final ServiceProcess[] grpc = new ServiceProcess[2];
    static final ExecutorService starter = Executors.newFixedThreadPool(3);

    @BeforeAll
    static void startFourInstances() {
        servers = LocalServers.onFreePorts("rolling");
        servers.start();
        database = TestDatabase.of(servers);
        // The first instance seeds (and migrates) the database; the others start on it in parallel.
        rest[0] = startRest(0, LocalServices.seeding(HYBRID));
        CompletableFuture.allOf(
                CompletableFuture.runAsync(() -> rest[1] = startRest(1, HYBRID), starter),
                CompletableFuture.runAsync(() -> grpc[0] = startGrpc(0), starter),
                CompletableFuture.runAsync(() -> grpc[1] = startGrpc(1), starter)).join();
    }

    @AfterAll
    static void stopEverything() {
        try {
            for (ServiceProcess service : new ServiceProcess[] {rest[0], rest[1], grpc[0], grpc[1]}) {
                if (service != null) {
                    service.close();
                }
            }
            starter.shutdownNow();
        } finally {
            servers.close();
        }
    }

    private static ServiceProcess startRest(int i, Map<String, String> env) {
        return LocalServices.rest("rolling-rest-" + (i + 1), servers, restPorts.get(i), env);
    }

    private static ServiceProcess startGrpc(int i) {
        return LocalServices.grpc("rolling-grpc-" + (i + 1), servers, grpcPorts.get(i), managementPorts.get(i), HYBRID);
    }

    @Test
    void restartingEachInstanceInTurnUnderSteadyLoadFailsNoRequest() throws Exception {
        ServedBy servedBy = new ServedBy();
        try (RestBalancer balancer = new RestBalancer(restPorts, servedBy);
             RoundRobinGrpcChannel channel = new RoundRobinGrpcChannel(grpcPorts, servedBy);
             SteadyLoad load = new SteadyLoad(database)) {
            LoadWire restWire = new RestLoadWire(balancer);
            LoadWire grpcWire = new GrpcLoadWire(channel);
            load.readers(restWire, 2).writer(restWire, 41).writer(restWire, 42)
                    .readers(grpcWire, 2).writer(grpcWire, 43).writer(grpcWire, 44);

            servedBy.phase("before");
            load.start();
            awaitEveryInstanceServed(servedBy, "before");

            servedBy.phase("restarts");
            for (int i = 0; i < 2; i++) {
                int instance = i;
                // Instance i of both services at once: each is independent of the other service.
                CompletableFuture.allOf(
                        CompletableFuture.runAsync(() -> restartRest(instance, balancer, servedBy), starter),
                        CompletableFuture.runAsync(() -> restartGrpc(instance, channel, servedBy), starter)).join();
            }

            servedBy.phase("after");
            awaitEveryInstanceServed(servedBy, "after");
            load.stop();

            System.out.println("rolling restart: " + load.succeeded() + " requests OK (REST " + load.succeeded("REST")
                    + ", gRPC " + load.succeeded("gRPC") + "), " + load.failed() + " failed; served by " + servedBy);
            assertThat(load.failures()).as("failed requests (of " + load.failed() + ")").isEmpty();
            assertThat(load.failed()).isZero();
            assertThat(load.writesMissingFromDatabase()).as("writes answered OK but not in the database").isEmpty();
        }
    }

    /** SIGTERM, a clean exit, a start on the same port, and back in the balancer with requests served. */
    private static void restartRest(int i, RestBalancer balancer, ServedBy servedBy) {
        int port = restPorts.get(i);
        rest[i].terminate();
        assertThat(rest[i].awaitExit(BOUND)).as("exit status of REST " + (i + 1) + "; see " + rest[i].log()).isZero();
        log("REST " + (i + 1) + " exited 0; starting it again");
        rest[i] = startRest(i, HYBRID);
        balancer.awaitInService(port, BOUND);
        long before = servedBy.total("rest", port);
        Await.until("REST " + (i + 1) + " serves again", BOUND, () -> servedBy.total("rest", port) >= before + SERVED);
        log("REST " + (i + 1) + " back in service");
    }

    private static void restartGrpc(int i, RoundRobinGrpcChannel channel, ServedBy servedBy) {
        int port = grpcPorts.get(i);
        grpc[i].terminate();
        assertThat(grpc[i].awaitExit(BOUND)).as("exit status of gRPC " + (i + 1) + "; see " + grpc[i].log()).isZero();
        log("gRPC " + (i + 1) + " exited 0; starting it again");
        grpc[i] = startGrpc(i);
        long before = servedBy.total("grpc", port);
        // The channel has been reconnecting with growing back-off since the instance went away.
        Await.until("gRPC " + (i + 1) + " serves again", BOUND, () -> {
            channel.resetConnectBackoff();
            return servedBy.total("grpc", port) >= before + SERVED;
        });
        log("gRPC " + (i + 1) + " back in service");
    }

    private static void awaitEveryInstanceServed(ServedBy servedBy, String phase) {
        Await.until("every instance serves in phase '" + phase + "': " + servedBy, BOUND, () ->
                restPorts.stream().allMatch(p -> servedBy.count(phase, "rest", p) >= SERVED)
                        && grpcPorts.stream().allMatch(p -> servedBy.count(phase, "grpc", p) >= SERVED));
    }

    private static void log(String message) {
        System.out.println(Instant.now() + " " + message);
    }
}
