package dev.tandem.system;

import dev.tandem.auth.DevTokens;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.testsupport.ServicePair;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.TestDatabase;
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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

    static ServicePair pair;
    static ManagedChannel channel;
    static StudyGroupServiceGrpc.StudyGroupServiceBlockingStub grpcApi;
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startServersAndBothServices() {
        pair = ServicePair.start("outage-db", Map.of());
        channel = NettyChannelBuilder.forAddress("127.0.0.1", pair.grpcPort).usePlaintext().build();
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
        } finally {
            if (pair != null) {
                pair.close();
            }
        }
    }

    @Test
    void failuresAreUnavailableWhileMariaDbIsDownAndEverythingRecoversWithoutARestart() throws Exception {
        OutageLoad load = new OutageLoad(pair.restPort, grpcApi, SUBJECT);
        load.start();
        try {
            await(() -> load.okWrites("REST") >= 5 && load.okWrites("gRPC") >= 5, "writes succeed on both wires");
            // Read now, so it is in both cache levels when the database goes away.
            assertThat(load.restGet("/api/v1/groups/1").statusCode()).isEqualTo(200);
            grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).getGroup(GetGroupRequest.newBuilder().setId(1).build());

            pair.servers.stop("mariadb");
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
                assertThat(load.restGet("/api/v1/groups/1").statusCode()).as("cached read on REST during the outage").isEqualTo(200);
                assertThat(grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS)
                        .getGroup(GetGroupRequest.newBuilder().setId(1).build()).getId()).isEqualTo(1);
            } finally {
                pair.servers.start("mariadb");
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

    // ---- health ----------------------------------------------------------------------------------

    private static int restHealth() {
        return healthStatus(pair.restPort);
    }

    private static int managementHealth() {
        return healthStatus(pair.grpcManagementPort);
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

    private static void await(BooleanSupplier condition, String what) {
        Await.until(what, BOUND, condition);
    }

    // ---- the database afterwards -----------------------------------------------------------------

    private static void verifyTheDatabase(Iterable<OutageLoad.Attempt> attempts) {
        TestDatabase db = TestDatabase.of(pair.servers);
        List<String> wrong = new ArrayList<>();
        int ok = 0;
        int failed = 0;
        int ambiguous = 0;
        for (OutageLoad.Attempt attempt : attempts) {
            if (attempt.kind() == OutageLoad.Kind.READ) {
                continue;
            }
            long stored = attempt.kind() == OutageLoad.Kind.CREATE_GROUP
                    ? count(db, "SELECT COUNT(*) FROM study_groups WHERE name = ?", attempt.key())
                    : count(db, "SELECT COUNT(*) FROM users WHERE email = ?", attempt.key());
            if (attempt.ok()) {
                ok++;
                if (stored != 1) {
                    wrong.add("answered OK but stored " + stored + " times: " + attempt);
                }
            } else if (attempt.commitOutcomeUnknown()) {
                ambiguous++;
                if (stored > 1) {
                    wrong.add("stored " + stored + " times: " + attempt);
                }
            } else {
                failed++;
                if (stored != 0) {
                    wrong.add("answered " + attempt.code() + " but stored: " + attempt);
                }
            }
        }
        long withoutOwner = count(db, """
                SELECT COUNT(*) FROM study_groups g WHERE g.subject = ?
                  AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.id AND m.user_id = g.owner_id)""",
                SUBJECT);
        assertThat(withoutOwner).as("groups created without their owner's membership (half-applied)").isZero();
        System.out.printf("MySQL outage: %d writes answered OK, %d answered UNAVAILABLE, %d UNAVAILABLE with unknown "
                + "commit outcome; %d mismatches%n", ok, failed, ambiguous, wrong.size());
        assertThat(wrong).as("writes whose answer and stored state disagree").isEmpty();
        assertThat(ok).as("writes answered OK").isPositive();
        assertThat(failed + ambiguous).as("writes answered UNAVAILABLE (of which %d with unknown commit outcome)", ambiguous)
                .isPositive();
    }

    private static long count(TestDatabase db, String sql, String parameter) {
        return Long.parseLong(db.value(sql, parameter));
    }
}
