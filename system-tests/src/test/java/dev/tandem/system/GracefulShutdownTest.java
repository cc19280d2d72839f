package dev.tandem.system;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.FieldMask;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.Http1Response;
import dev.tandem.testsupport.KeepAliveConnection;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.LocalServices;
import dev.tandem.testsupport.RowLock;
import dev.tandem.testsupport.ServiceProcess;
import dev.tandem.testsupport.TestDatabase;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request in flight when the service is asked to stop (SIGTERM) finishes, on each wire: it is
 * answered OK, its write is in MariaDB, the cache of the other service no longer serves the old
 * value (so the invalidation went out during shutdown, before the Redis connection closed), and
 * the process then exits 0. On the way the test watches the shutdown's steps: first the drain
 * (still serving, but readiness OUT_OF_SERVICE and {@code Connection: close} on REST,
 * grpc.health.v1 NOT_SERVING on gRPC, for "" and for the API's service by its name), then the
 * server stops accepting (and gRPC sends GOAWAY), while the request is still waiting.
 *
 * <p>The request is kept in flight deterministically: the test holds the group's row lock in its
 * own transaction, the write waits for it in MariaDB, and the test releases it once the server has
 * stopped accepting. Both services run in hybrid cache mode on their own MariaDB and Redis.
 */
class GracefulShutdownTest {

    private static final Duration STEP = Duration.ofSeconds(30);
    /** The "few seconds" of closing the README allows beyond drain delay + grace period. */
    private static final Duration FEW_SECONDS = Duration.ofSeconds(5);
    /**
     * The drain lasts 10 s here, not the default 2: the test makes two or three requests inside it
     * after seeing it begin, which a loaded 2-core machine can push past 2 s. The request in flight
     * waits through it, so the server's cap on a request is raised above it too.
     */
    private static final Map<String, String> HYBRID = Map.of("TANDEM_CACHE_MODE", "hybrid",
            "TANDEM_SHUTDOWN_DRAIN_DELAY", "10s", "TANDEM_LIMITS_REQUEST_TIMEOUT", "60s",
            "MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE", "health,cache");

    static LocalServers servers;
    static TestDatabase database;
    static final int restPort = FreePort.pick();
    static final int grpcPort = FreePort.pick();
    static final int grpcManagementPort = FreePort.pick();
    static ServiceProcess rest;
    static ServiceProcess grpc;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    static void startServersAndSeed() {
        servers = LocalServers.onFreePorts("rolling");
        servers.start();
        database = TestDatabase.of(servers);
        rest = LocalServices.rest("shutdown-rest", servers, restPort, LocalServices.seeding(HYBRID));
    }

    @AfterAll
    static void stopEverything() {
        try {
            for (ServiceProcess service : new ServiceProcess[] {rest, grpc}) {
                if (service != null) {
                    service.close();
                }
            }
        } finally {
            servers.close();
        }
    }

    /**
     * Each test stops one of the two and, however it ends, leaves it exited (closing it waits for
     * that), so the next one starts it again (without seeding) rather than finding it half shut down.
     */
    private static void bothRunning() {
        if (rest == null || !rest.isAlive()) {
            rest = LocalServices.rest("shutdown-rest", servers, restPort, HYBRID);
        }
        if (grpc == null || !grpc.isAlive()) {
            grpc = LocalServices.grpc("shutdown-grpc", servers, grpcPort, grpcManagementPort, HYBRID);
        }
    }

    @Test
    void restRequestInFlightAtSigtermFinishesAndReachesDatabaseAndCache() throws Exception {
        bothRunning();
        long groupId = 7;
        String newName = "Renamed in flight over REST";
        try (GrpcWire grpcReader = new GrpcWire(grpcPort); ServiceProcess stopping = rest) {
            // The gRPC instance now holds the group in its L1, and L2 holds it too.
            Group before = grpcReader.getGroup(GetGroupRequest.newBuilder().setId(groupId).build());
            assertThat(grpcReader.getGroup(GetGroupRequest.newBuilder().setId(groupId).build())).isEqualTo(before);
            double relayedBefore = relayedForOthers(grpcManagementPort);

            CompletableFuture<HttpResponse<String>> inFlight;
            try (RowLock lock = database.lockGroup(groupId)) {
                inFlight = http.sendAsync(HttpRequest.newBuilder(URI.create(restUrl("/api/v1/groups/" + groupId)))
                        .timeout(Duration.ofSeconds(90))
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + Tokens.WRITER)
                        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"group\":{\"name\":\"" + newName
                                + "\"},\"updateMask\":\"name\",\"expectedVersion\":\"" + before.getVersion() + "\"}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                Await.until("the PATCH waits for the group's row lock", STEP, database::someoneWaitsForGroupLock);

                rest.terminate();

                // The drain: readiness says go away, requests are still served, and every response
                // closes its connection so that no client sends a next request down it.
                HttpResponse<String> readiness = Await.value("readiness OUT_OF_SERVICE", STEP, () -> {
                    HttpResponse<String> response = get(restUrl("/actuator/health/readiness"));
                    return response.statusCode() == 503 ? response : null;
                });
                assertThat(readiness.body()).contains("OUT_OF_SERVICE");
                assertThat(readiness.headers().firstValue("Connection")).hasValue("close");
                HttpResponse<String> duringDrain = get(restUrl("/api/v1/groups/1"));
                assertThat(duringDrain.statusCode()).isEqualTo(200);
                assertThat(duringDrain.headers().firstValue("Connection")).hasValue("close");

                // Then Tomcat stops accepting, while the PATCH is still waiting.
                Await.until("REST stops accepting connections", STEP, () -> !Await.accepts(restPort));
                assertThat(inFlight).isNotDone();
                assertThat(rest.isAlive()).isTrue();
                // Frozen from before the commit until the writer has exited: only the writer can
                // relay its row meanwhile (the other's follower would relay one it finds unmarked).
                grpc.pause();
            }

            try {
                HttpResponse<String> answer = answerOf(inFlight, rest);
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
                assertThat(answer.body()).contains(newName);
                assertThat(rest.awaitExit(STEP)).as("exit status; see " + rest.log()).isZero();
            } finally {
                grpc.resume();
            }

            assertThat(database.value("SELECT name FROM study_groups WHERE id = ?", groupId)).isEqualTo(newName);
            // The invalidation went out during shutdown: the other service stops serving its
            // cached copy (L1 within the staleness bound; L2 would otherwise keep it for minutes).
            Await.until("gRPC serves the new name", Duration.ofSeconds(10),
                    () -> grpcReader.getGroup(GetGroupRequest.newBuilder().setId(groupId).build()).getName().equals(newName));
            // The stopping writer relayed it itself: the other, frozen until it had exited, found the
            // row's marker (without it, its follower would have relayed the row and passed the check
            // above as well).
            assertThat(relayedForOthers(grpcManagementPort)).as("rows the gRPC instance relayed for others")
                    .isEqualTo(relayedBefore);
        }
    }

    @Test
    void grpcCallInFlightAtSigtermFinishesAndReachesDatabaseAndCache() throws Exception {
        bothRunning();
        long groupId = 8;
        String newName = "Renamed in flight over gRPC";
        RestWire restReader = new RestWire(restPort);
        Group before = restReader.getGroup(GetGroupRequest.newBuilder().setId(groupId).build());
        assertThat(restReader.getGroup(GetGroupRequest.newBuilder().setId(groupId).build())).isEqualTo(before);
        double relayedBefore = relayedForOthers(restPort);

        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
        try (ServiceProcess stopping = grpc) {
            Metadata token = new Metadata();
            token.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + Tokens.WRITER);
            StudyGroupServiceGrpc.StudyGroupServiceBlockingStub reads = StudyGroupServiceGrpc.newBlockingStub(channel);
            assertThat(reads.getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
            HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
            // Clients that health-check the service they call ask by its name: it follows "" both ways.
            HealthCheckRequest apiService = HealthCheckRequest.newBuilder().setService(StudyGroupServiceGrpc.SERVICE_NAME).build();
            Await.until("the API's service SERVING by its name", STEP, () -> health.withDeadlineAfter(5, TimeUnit.SECONDS)
                    .check(apiService).getStatus() == HealthCheckResponse.ServingStatus.SERVING);

            ListenableFuture<Group> inFlight;
            try (RowLock lock = database.lockGroup(groupId)) {
                inFlight = StudyGroupServiceGrpc.newFutureStub(channel)
                        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(token))
                        .withDeadlineAfter(90, TimeUnit.SECONDS)
                        .updateGroup(UpdateGroupRequest.newBuilder().setId(groupId)
                                .setGroup(Group.newBuilder().setName(newName))
                                .setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                                .setExpectedVersion(before.getVersion()).build());
                Await.until("UpdateGroup waits for the group's row lock", STEP, database::someoneWaitsForGroupLock);

                grpc.terminate();

                // The drain: grpc.health.v1 and the readiness say go away, calls are still served.
                Await.until("grpc.health.v1 NOT_SERVING", STEP, () -> health.withDeadlineAfter(5, TimeUnit.SECONDS)
                        .check(HealthCheckRequest.getDefaultInstance()).getStatus() == HealthCheckResponse.ServingStatus.NOT_SERVING);
                assertThat(health.withDeadlineAfter(5, TimeUnit.SECONDS).check(apiService).getStatus())
                        .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
                assertThat(get("http://127.0.0.1:" + grpcManagementPort + "/actuator/health/readiness").statusCode()).isEqualTo(503);
                assertThat(reads.withDeadlineAfter(30, TimeUnit.SECONDS).getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId())
                        .isEqualTo(1);

                // Then GOAWAY: the channel's connection stops taking calls (the channel leaves
                // READY) and the server stops accepting, while UpdateGroup is still waiting.
                Await.until("the channel got GOAWAY", STEP, () -> channel.getState(false) != ConnectivityState.READY);
                Await.until("gRPC stops accepting connections", STEP, () -> !Await.accepts(grpcPort));
                assertThat(inFlight.isDone()).isFalse();
                assertThat(grpc.isAlive()).isTrue();
                rest.pause(); // as in the REST test: only the writer can relay its row
            }

            try {
                Group answer = answerOf(inFlight, grpc);
                assertThat(answer.getName()).isEqualTo(newName);
                assertThat(answer.getVersion()).isEqualTo(before.getVersion() + 1);
                assertThat(grpc.awaitExit(STEP)).as("exit status; see " + grpc.log()).isZero();
            } finally {
                rest.resume();
            }

            assertThat(database.value("SELECT name FROM study_groups WHERE id = ?", groupId)).isEqualTo(newName);
            Await.until("REST serves the new name", Duration.ofSeconds(10),
                    () -> restReader.getGroup(GetGroupRequest.newBuilder().setId(groupId).build()).getName().equals(newName));
            assertThat(relayedForOthers(restPort)).as("rows the REST instance relayed for others (the writer relayed its own)")
                    .isEqualTo(relayedBefore);
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A request already in flight when the drain begins still tells its keep-alive client to go:
     * whether it finishes during the drain (the connector still keeps connections then, so a kept
     * one would get the next request answered 503 once Tomcat pauses, or cut as it stops) or during
     * the grace period, its response carries {@code Connection: close} and the connection ends
     * after it. So does an answer a filter gives on its own during the drain (a 415 of the body
     * check, which runs before the controllers). Each request goes down a connection that served a
     * request before and was kept, as a pooling client's would.
     */
    @Test
    void restRequestsInFlightWhenTheDrainBeginsCloseTheirKeepAliveConnections() throws Exception {
        int port = FreePort.pick();
        long finishesInDrain = 10;
        long finishesInGrace = 11;
        try (ServiceProcess stopping = LocalServices.rest("shutdown-rest-keep-alive", servers, port, HYBRID);
             KeepAliveConnection first = KeepAliveConnection.open(port, STEP);
             KeepAliveConnection second = KeepAliveConnection.open(port, STEP);
             KeepAliveConnection refusedByAFilter = KeepAliveConnection.open(port, STEP)) {
            RowLock drainLock = database.lockGroup(finishesInDrain);
            RowLock graceLock = database.lockGroup(finishesInGrace);
            try {
                String firstVersion = keptAfterARead(first, finishesInDrain);
                String secondVersion = keptAfterARead(second, finishesInGrace);
                keptAfterARead(refusedByAFilter, finishesInGrace);
                first.send("PATCH", "/api/v1/groups/" + finishesInDrain, WRITE_HEADERS, rename(firstVersion));
                second.send("PATCH", "/api/v1/groups/" + finishesInGrace, WRITE_HEADERS, rename(secondVersion));
                Await.until("both PATCHes wait for their row locks", STEP, () -> database.groupLockWaiters() == 2);

                stopping.terminate();
                Await.until("readiness OUT_OF_SERVICE", STEP,
                        () -> get("http://127.0.0.1:" + port + "/actuator/health/readiness").statusCode() == 503);
                // An answer a filter gives on its own (here the body check's 415 for a compressed
                // body) closes its connection too, not only what reaches a controller.
                Http1Response refused = refusedByAFilter.exchange("POST", "/api/v1/groups",
                        Stream.concat(WRITE_HEADERS.stream(), Stream.of("Content-Encoding: gzip")).toList(), "{}");
                assertThat(refused.status()).as(refused.bodyText()).isEqualTo(415);
                assertThat(refused.header("Connection")).as("refused by a filter during the drain: " + refused.headers())
                        .isEqualTo("close");
                assertThat(refusedByAFilter.closedByServerWithin(FEW_SECONDS)).as("the connection ends after it").isTrue();
                drainLock.close();
                Http1Response inDrain = first.read();
                assertThat(Await.accepts(port)).as("still in the drain: Tomcat accepts").isTrue();
                assertThat(inDrain.status()).as(inDrain.bodyText()).isEqualTo(200);
                assertThat(inDrain.header("Connection")).as("finished during the drain: " + inDrain.headers())
                        .isEqualTo("close");
                assertThat(first.closedByServerWithin(FEW_SECONDS)).as("the connection ends after it").isTrue();

                Await.until("REST stops accepting connections", STEP, () -> !Await.accepts(port));
                graceLock.close();
                Http1Response inGrace = second.read();
                assertThat(inGrace.status()).as(inGrace.bodyText()).isEqualTo(200);
                assertThat(inGrace.header("Connection")).as("finished during the grace period: " + inGrace.headers())
                        .isEqualTo("close");
                assertThat(second.closedByServerWithin(FEW_SECONDS)).as("the connection ends after it").isTrue();
                assertThat(stopping.awaitExit(STEP)).as("exit status; see " + stopping.log()).isZero();
            } finally {
                drainLock.close();
                graceLock.close();
            }
        }
    }

    private static final List<String> WRITE_HEADERS = List.of("Content-Type: application/json",
            "Authorization: Bearer " + Tokens.WRITER);

    /** Reads the group on {@code connection}, which the server keeps open; the group's version. */
    private static String keptAfterARead(KeepAliveConnection connection, long groupId) throws IOException {
        Http1Response read = connection.exchange("GET", "/api/v1/groups/" + groupId,
                List.of("Accept: application/json"), null);
        assertThat(read.status()).as(read.bodyText()).isEqualTo(200);
        assertThat(read.header("Connection")).as("a connection the server keeps").isNotEqualTo("close");
        return database.value("SELECT version FROM study_groups WHERE id = ?", groupId);
    }

    private static String rename(String version) {
        return "{\"group\":{\"name\":\"Renamed while draining\"},\"updateMask\":\"name\",\"expectedVersion\":\""
                + version + "\"}";
    }

    /**
     * The bound an orchestrator's kill timeout is set from: a request that does not finish within the
     * grace period (here it waits for a row lock that is never released) does not hold the process
     * beyond drain delay + grace period + a few seconds, the process still exits 0, and the request's
     * write is not half applied: its transaction rolls back, the row keeps its old name. A second
     * SIGTERM on the way changes none of it.
     */
    @Test
    void restRequestOutlivingTheGracePeriodDoesNotHoldTheExitAndIsNotHalfWritten() throws Exception {
        long groupId = 9;
        int port = FreePort.pick();
        Duration drain = Duration.ofSeconds(1);
        Duration grace = Duration.ofSeconds(3);
        String oldName = database.value("SELECT name FROM study_groups WHERE id = ?", groupId);
        String version = database.value("SELECT version FROM study_groups WHERE id = ?", groupId);
        try (ServiceProcess stopping = LocalServices.rest("shutdown-rest-stuck", servers, port, Map.of(
                "TANDEM_CACHE_MODE", "hybrid", "TANDEM_LIMITS_REQUEST_TIMEOUT", "60s",
                "TANDEM_SHUTDOWN_DRAIN_DELAY", drain.toMillis() + "ms",
                "TANDEM_SHUTDOWN_GRACE_PERIOD", grace.toMillis() + "ms"));
             RowLock lock = database.lockGroup(groupId)) {
            CompletableFuture<HttpResponse<String>> stuck = http.sendAsync(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/api/v1/groups/" + groupId))
                    .timeout(Duration.ofSeconds(90))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + Tokens.WRITER)
                    .method("PATCH", HttpRequest.BodyPublishers.ofString(
                            "{\"group\":{\"name\":\"Never written\"},\"updateMask\":\"name\",\"expectedVersion\":\""
                                    + version + "\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            Await.until("the PATCH waits for the group's row lock", STEP, database::someoneWaitsForGroupLock);

            long asked = System.nanoTime();
            stopping.terminate();
            // A second SIGTERM during the drain (an impatient operator, a supervisor that repeats
            // itself) changes nothing: the same shutdown goes on, to the same exit status.
            Await.sleep(drain.toMillis() / 2);
            stopping.terminate();
            Duration bound = drain.plus(grace).plus(FEW_SECONDS);
            assertThat(stopping.awaitExit(bound)).as("exit status; see " + stopping.log()).isZero();
            System.out.println("The REST instance exited " + Duration.ofNanos(System.nanoTime() - asked).toMillis()
                    + " ms after SIGTERM with a request stuck in it");
            Await.until("the stuck request is answered or its connection closed", STEP, stuck::isDone);
        }
        assertThat(database.value("SELECT name FROM study_groups WHERE id = ?", groupId)).isEqualTo(oldName);
    }

    /**
     * The same bound when what the services close last does not answer: MariaDB and Redis frozen
     * (SIGSTOP) as the services are asked to stop, so that the cache's follower, the pools and the
     * Redis client close against servers that neither answer nor refuse. Both services exit 0 within
     * drain delay + grace period + a few seconds.
     */
    @Test
    void bothServicesStopWithinTheBoundWhileTheDatabaseAndRedisHang() {
        Duration drain = Duration.ofSeconds(1);
        Duration grace = Duration.ofSeconds(3);
        Map<String, String> env = Map.of("TANDEM_CACHE_MODE", "hybrid",
                "TANDEM_SHUTDOWN_DRAIN_DELAY", drain.toMillis() + "ms",
                "TANDEM_SHUTDOWN_GRACE_PERIOD", grace.toMillis() + "ms");
        int restOwnPort = FreePort.pick();
        try (ServiceProcess restStopping = LocalServices.rest("shutdown-rest-hung-servers", servers, restOwnPort, env);
             ServiceProcess grpcStopping = LocalServices.grpc("shutdown-grpc-hung-servers", servers, FreePort.pick(),
                     FreePort.pick(), env)) {
            assertThat(get("http://127.0.0.1:" + restOwnPort + "/api/v1/groups/1").statusCode()).isEqualTo(200);
            servers.pause("mariadb");
            servers.pause("redis");
            try {
                long asked = System.nanoTime();
                restStopping.terminate();
                grpcStopping.terminate();
                Duration bound = drain.plus(grace).plus(FEW_SECONDS);
                assertThat(restStopping.awaitExit(bound)).as("REST's exit status; see " + restStopping.log()).isZero();
                assertThat(grpcStopping.awaitExit(bound.minus(Duration.ofNanos(System.nanoTime() - asked))))
                        .as("gRPC's exit status; see " + grpcStopping.log()).isZero();
                System.out.println("Both exited " + Duration.ofNanos(System.nanoTime() - asked).toMillis()
                        + " ms after SIGTERM with MariaDB and Redis frozen");
            } finally {
                servers.resume("redis");
                servers.resume("mariadb");
            }
        }
    }

    /** How many log rows the instance whose actuator is on {@code port} relayed because their writer had not. */
    private static double relayedForOthers(int port) {
        return CacheStatus.of(port).getFieldsOrThrow("invalidations").getStructValue()
                .getFieldsOrThrow("relayedForOthers").getNumberValue();
    }

    /**
     * The in-flight request's answer; when there is none, the failure quotes the service's log, so
     * that a CI run (whose files are gone afterwards) says what the service saw at its shutdown.
     */
    private static <T> T answerOf(Future<T> inFlight, ServiceProcess service) throws InterruptedException {
        try {
            return inFlight.get(STEP.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            Object why = e instanceof ExecutionException ? e.getCause() : "none within " + STEP;
            throw new AssertionError("the request in flight at SIGTERM got no answer (" + why + ")\n"
                    + service.diagnosis(), e);
        }
    }

    private static String restUrl(String path) {
        return "http://127.0.0.1:" + restPort + path;
    }

    private HttpResponse<String> get(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
