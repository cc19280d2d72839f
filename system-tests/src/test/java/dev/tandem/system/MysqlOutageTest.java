package dev.tandem.system;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.tandem.auth.DevTokens;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MySQL down and back, end to end: both service jars run as processes against a MariaDB + Redis
 * pair of this test's own (ports 13317/16389, so stopping its MariaDB disturbs no other test) while a
 * steady stream of reads and writes goes through both wires. With MariaDB stopped every failure is
 * 503 with Retry-After / UNAVAILABLE with RetryInfo (never a 500, INTERNAL or UNKNOWN), the REST
 * and management health say DOWN and the gRPC health NOT_SERVING; with MariaDB started again health
 * comes back and requests succeed, with no service restart. Afterwards the database holds every
 * write that was answered OK, none that was answered with a failure (unless the failure said its
 * commit outcome was unknown), and no half-applied one: every group has its owner's membership.
 * Reads of cached groups keep answering from the cache (hybrid mode) during the outage.
 */
class MysqlOutageTest {

    /** Bounded waits for something to happen; not a timing assertion. */
    private static final Duration BOUND = Duration.ofSeconds(120);
    private static final String SUBJECT = "outage";

    static LocalServers servers;
    static ServiceProcess restService;
    static ServiceProcess grpcService;
    static int restPort;
    static int grpcPort;
    static int grpcManagementPort;
    static ManagedChannel channel;
    static StudyGroupServiceGrpc.StudyGroupServiceBlockingStub grpcApi;
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startServersAndBothServices() {
        servers = new LocalServers("outage-db", 13317, 16389);
        servers.start();
        restPort = ServiceProcess.freePort();
        grpcPort = ServiceProcess.freePort();
        grpcManagementPort = ServiceProcess.freePort();
        Map<String, String> rest = new HashMap<>(servers.serviceEnvironment());
        rest.putAll(Map.of("SERVER_PORT", String.valueOf(restPort), "TANDEM_SEED_MODE", "reset", "TANDEM_SEED_SCALE", "1"));
        restService = ServiceProcess.start("rest-service-outage", "tandem.rest.jar", restPort, rest);
        Map<String, String> grpc = new HashMap<>(servers.serviceEnvironment());
        grpc.putAll(Map.of("SERVER_PORT", String.valueOf(grpcManagementPort),
                "SPRING_GRPC_SERVER_PORT", String.valueOf(grpcPort)));
        grpcService = ServiceProcess.start("grpc-service-outage", "tandem.grpc.jar", grpcManagementPort, grpc);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
        Metadata token = new Metadata();
        token.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + DevTokens.devWriter());
        grpcApi = StudyGroupServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(token));
    }

    @AfterAll
    static void stopEverything() throws InterruptedException {
        try {
            if (channel != null) {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            if (grpcService != null) {
                grpcService.close();
            }
            if (restService != null) {
                restService.close();
            }
        } finally {
            if (servers != null) {
                servers.close();
            }
        }
    }

    @Test
    void failuresAreUnavailableWhileMariaDbIsDownAndEverythingRecoversWithoutARestart() throws Exception {
        Load load = new Load();
        load.start();
        try {
            await(() -> load.okWrites("REST") >= 5 && load.okWrites("gRPC") >= 5, "writes succeed on both wires");
            // Read now, so it is in both cache levels when the database goes away.
            assertThat(restGet("/api/v1/groups/1").statusCode()).isEqualTo(200);
            grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).getGroup(GetGroupRequest.newBuilder().setId(1).build());

            servers.stop("mariadb");
            try {
                int restFailed = load.failedWrites("REST");
                int grpcFailed = load.failedWrites("gRPC");
                await(() -> load.failedWrites("REST") >= restFailed + 3 && load.failedWrites("gRPC") >= grpcFailed + 3,
                        "writes fail on both wires while MariaDB is down");
                await(() -> restHealth() == 503, "REST /actuator/health is 503 DOWN");
                await(() -> managementHealth() == 503, "the gRPC service's /actuator/health is 503 DOWN");
                await(() -> grpcHealth() == HealthCheckResponse.ServingStatus.NOT_SERVING,
                        "grpc.health.v1.Health says NOT_SERVING");
                // Hybrid cache: a group read before the outage is still answered, from L1/L2.
                assertThat(restGet("/api/v1/groups/1").statusCode()).as("cached read on REST during the outage").isEqualTo(200);
                assertThat(grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS)
                        .getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
            } finally {
                servers.start("mariadb");
            }

            await(() -> restHealth() == 200, "REST health UP again");
            await(() -> managementHealth() == 200, "the gRPC service's health UP again");
            await(() -> grpcHealth() == HealthCheckResponse.ServingStatus.SERVING, "gRPC health SERVING again");
            int restOk = load.okWrites("REST");
            int grpcOk = load.okWrites("gRPC");
            await(() -> load.okWrites("REST") >= restOk + 3 && load.okWrites("gRPC") >= grpcOk + 3,
                    "writes succeed again on both wires, without a restart");
        } finally {
            load.stop();
        }

        assertThat(load.violations).as("answers other than success or 503/UNAVAILABLE with a retry delay").isEmpty();
        assertThat(load.attempts).as("the load ran").isNotEmpty();
        verifyTheDatabase(load.attempts);
    }

    // ---- the load ------------------------------------------------------------------------------

    private enum Kind { CREATE_GROUP, CREATE_USER, READ }

    /** One request and how it ended: ok, or failed with this code (and whether its commit outcome was unknown). */
    private record Attempt(String wire, Kind kind, String key, boolean ok, String code, boolean commitOutcomeUnknown) {
    }

    private static final class Failed extends Exception {
        final String code;
        final boolean commitOutcomeUnknown;

        Failed(String code, boolean commitOutcomeUnknown) {
            super(code, null, false, false);
            this.code = code;
            this.commitOutcomeUnknown = commitOutcomeUnknown;
        }
    }

    /** A reader and a writer per wire, each one request at a time with a short pause, until stopped. */
    private final class Load {
        final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();

        void start() {
            for (String wire : List.of("REST", "gRPC")) {
                threads.add(Thread.ofPlatform().name("outage-writer-" + wire).start(() -> write(wire)));
                threads.add(Thread.ofPlatform().name("outage-reader-" + wire).start(() -> read(wire)));
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(Duration.ofSeconds(60));
            }
        }

        int okWrites(String wire) {
            return (int) attempts.stream().filter(a -> a.wire.equals(wire) && a.kind != Kind.READ && a.ok).count();
        }

        int failedWrites(String wire) {
            return (int) attempts.stream().filter(a -> a.wire.equals(wire) && a.kind != Kind.READ && !a.ok).count();
        }

        private void write(String wire) {
            Instant end = Instant.now().plus(Duration.ofMinutes(8));
            for (int i = 0; running.get() && Instant.now().isBefore(end); i++) {
                Kind kind = i % 2 == 0 ? Kind.CREATE_GROUP : Kind.CREATE_USER;
                String key = kind == Kind.CREATE_GROUP ? "outage-" + wire.toLowerCase() + "-g" + i
                        : "outage-" + wire.toLowerCase() + "-u" + i + "@outage.test";
                long owner = 1 + i % 100;
                attempt(wire, kind, key, () -> {
                    if (kind == Kind.CREATE_GROUP) {
                        createGroup(wire, key, owner);
                    } else {
                        createUser(wire, key);
                    }
                });
                pause();
            }
        }

        private void read(String wire) {
            Random random = new Random(wire.hashCode());
            Instant end = Instant.now().plus(Duration.ofMinutes(8));
            for (int i = 0; running.get() && Instant.now().isBefore(end); i++) {
                long id = 1 + random.nextInt(50);
                boolean list = i % 3 == 0;
                attempt(wire, Kind.READ, list ? "list" : "group " + id, () -> {
                    if (list) {
                        listGroups(wire);
                    } else {
                        getGroup(wire, id);
                    }
                });
                pause();
            }
        }

        private void attempt(String wire, Kind kind, String key, Call call) {
            try {
                call.run();
                attempts.add(new Attempt(wire, kind, key, true, "OK", false));
            } catch (Failed failed) {
                attempts.add(new Attempt(wire, kind, key, false, failed.code, failed.commitOutcomeUnknown));
            } catch (Exception | AssertionError e) {
                violations.add(wire + " " + kind + " " + key + ": " + e);
            }
        }

        private void pause() {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running.set(false);
            }
        }

        // ---- REST ----

        private void createGroup(String wire, String name, long owner) throws Exception {
            if (wire.equals("REST")) {
                restWrite("/api/v1/groups", """
                        {"name":"%s","subject":"%s","capacity":5,"ownerId":%d}""".formatted(name, SUBJECT, owner));
            } else {
                grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).createGroup(CreateGroupRequest.newBuilder()
                        .setName(name).setSubject(SUBJECT).setCapacity(5).setOwnerId(owner).build()));
            }
        }

        private void createUser(String wire, String email) throws Exception {
            if (wire.equals("REST")) {
                restWrite("/api/v1/users", """
                        {"name":"Outage user","email":"%s"}""".formatted(email));
            } else {
                grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).createUser(CreateUserRequest.newBuilder()
                        .setName("Outage user").setEmail(email).build()));
            }
        }

        private void getGroup(String wire, long id) throws Exception {
            if (wire.equals("REST")) {
                restRead("/api/v1/groups/" + id);
            } else {
                grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).getGroup(GetGroupRequest.newBuilder().setId(id).build()));
            }
        }

        private void listGroups(String wire) throws Exception {
            if (wire.equals("REST")) {
                restRead("/api/v1/groups?subject=physics&page_size=5");
            } else {
                grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).listGroups(ListGroupsRequest.newBuilder()
                        .setSubject("physics").setPageSize(5).build()));
            }
        }
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    private static void restWrite(String path, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + DevTokens.devWriter())
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        restOutcome(http.send(request, HttpResponse.BodyHandlers.ofString()), 201);
    }

    private static void restRead(String path) throws Exception {
        restOutcome(restGet(path), 200);
    }

    /** Success, or a 503 problem+json UNAVAILABLE with a Retry-After of whole seconds; anything else is a violation. */
    private static void restOutcome(HttpResponse<String> response, int success) throws Failed {
        if (response.statusCode() == success) {
            return;
        }
        String type = response.headers().firstValue("Content-Type").orElse("");
        String retryAfter = response.headers().firstValue("Retry-After").orElse("");
        if (response.statusCode() == 503 && type.startsWith("application/problem+json")
                && response.body().contains("\"code\":\"UNAVAILABLE\"") && retryAfter.matches("[1-9][0-9]*")) {
            throw new Failed("UNAVAILABLE", response.body().contains("\"commitOutcome\":\"unknown\""));
        }
        throw new AssertionError("answered " + response.statusCode() + " (" + type + ", Retry-After '" + retryAfter
                + "'): " + response.body());
    }

    /** Success, or UNAVAILABLE with a RetryInfo detail; anything else is a violation. */
    private static void grpc(Runnable call) throws Failed {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            com.google.rpc.Status status = StatusProto.fromThrowable(e);
            boolean retryInfo = false;
            boolean commitUnknown = false;
            if (status != null) {
                for (Any detail : status.getDetailsList()) {
                    try {
                        if (detail.is(RetryInfo.class)) {
                            retryInfo = detail.unpack(RetryInfo.class).getRetryDelay().getSeconds() > 0;
                        } else if (detail.is(ErrorInfo.class)) {
                            commitUnknown = "unknown".equals(detail.unpack(ErrorInfo.class).getMetadataMap().get("commitOutcome"));
                        }
                    } catch (InvalidProtocolBufferException bad) {
                        throw new AssertionError("undecodable status detail", bad);
                    }
                }
            }
            if (e.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE && retryInfo) {
                throw new Failed("UNAVAILABLE", commitUnknown);
            }
            throw new AssertionError("failed with " + e.getStatus() + (retryInfo ? "" : " without RetryInfo"));
        }
    }

    // ---- health ----------------------------------------------------------------------------------

    private static HttpResponse<String> restGet(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int restHealth() {
        return healthStatus(restPort);
    }

    private static int managementHealth() {
        return healthStatus(grpcManagementPort);
    }

    /** The status of /actuator/health; the health check itself must answer within the bound of the request. */
    private static int healthStatus(int port) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 503) {
                assertThat(response.body()).contains("\"DOWN\"");
            }
            return response.statusCode();
        } catch (IOException e) {
            throw new AssertionError("/actuator/health on " + port + " did not answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HealthCheckResponse.ServingStatus grpcHealth() {
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("").build()).getStatus();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Instant end = Instant.now().plus(BOUND);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(end)) {
                throw new AssertionError("not within " + BOUND + ": " + what);
            }
            Thread.sleep(200);
        }
    }

    // ---- the database afterwards -----------------------------------------------------------------

    private static void verifyTheDatabase(Iterable<Attempt> attempts) throws SQLException {
        String url = "jdbc:mysql://127.0.0.1:" + servers.mariadbPort + "/"
                + System.getProperty("tandem.test.db-name", "tandem_test_system") + "?useSSL=false&allowPublicKeyRetrieval=true";
        List<String> wrong = new ArrayList<>();
        int ok = 0;
        int failed = 0;
        int ambiguous = 0;
        try (Connection db = DriverManager.getConnection(url, "tandem", "tandem")) {
            for (Attempt attempt : attempts) {
                if (attempt.kind == Kind.READ) {
                    continue;
                }
                long stored = attempt.kind == Kind.CREATE_GROUP
                        ? count(db, "SELECT COUNT(*) FROM study_groups WHERE name = ?", attempt.key)
                        : count(db, "SELECT COUNT(*) FROM users WHERE email = ?", attempt.key);
                if (attempt.ok) {
                    ok++;
                    if (stored != 1) {
                        wrong.add("answered OK but stored " + stored + " times: " + attempt);
                    }
                } else if (attempt.commitOutcomeUnknown) {
                    ambiguous++;
                    if (stored > 1) {
                        wrong.add("stored " + stored + " times: " + attempt);
                    }
                } else {
                    failed++;
                    if (stored != 0) {
                        wrong.add("answered " + attempt.code + " but stored: " + attempt);
                    }
                }
            }
            long withoutOwner = count(db, """
                    SELECT COUNT(*) FROM study_groups g WHERE g.subject = ?
                      AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.id AND m.user_id = g.owner_id)""",
                    SUBJECT);
            assertThat(withoutOwner).as("groups created without their owner's membership (half-applied)").isZero();
        }
        System.out.printf("MySQL outage: %d writes answered OK, %d answered UNAVAILABLE, %d UNAVAILABLE with unknown "
                + "commit outcome; %d mismatches%n", ok, failed, ambiguous, wrong.size());
        assertThat(wrong).as("writes whose answer and stored state disagree").isEmpty();
        assertThat(ok).as("writes answered OK").isPositive();
        assertThat(failed + ambiguous).as("writes answered UNAVAILABLE (of which %d with unknown commit outcome)", ambiguous)
                .isPositive();
    }

    private static long count(Connection db, String sql, String parameter) throws SQLException {
        try (PreparedStatement query = db.prepareStatement(sql)) {
            query.setString(1, parameter);
            try (ResultSet result = query.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }
}
