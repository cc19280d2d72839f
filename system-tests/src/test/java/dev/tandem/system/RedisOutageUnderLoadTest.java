package dev.tandem.system;

import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.LocalServices;
import dev.tandem.testsupport.ServiceProcess;
import dev.tandem.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis down and back, end to end through both services under load. A REST and a gRPC instance
 * (hybrid cache: Caffeine in front of Redis, invalidations through the log in MariaDB) share one MariaDB and Redis;
 * client threads read and write on both wires all along. Mid-load the test stops Redis, waits
 * until both caches have noticed, keeps the load on, starts Redis again and waits until both
 * caches are healthy again, without any L1 flush. No request may fail, every write answered OK must be in the database,
 * and afterwards (allowing the cache's staleness bound) no stale value may survive anywhere: every
 * GetGroup, ListGroups page, GetLeaderboard and GetUser answer of both services equals that of a
 * third instance running without a cache, which reads MariaDB.
 */
class RedisOutageUnderLoadTest {

    private static final Map<String, String> HYBRID = Map.of("TANDEM_CACHE_MODE", "hybrid");
    /** tandem.cache.staleness-bound, as both cached instances run with it (the default). */
    private static final Duration STALENESS_BOUND = Duration.ofSeconds(1);
    private static final Duration BOUND = Duration.ofSeconds(60);

    static LocalServers servers;
    static TestDatabase database;
    static final int restPort = FreePort.pick();
    static final int grpcPort = FreePort.pick();
    static final int grpcManagementPort = FreePort.pick();
    static final int referencePort = FreePort.pick();
    static ServiceProcess rest;
    static ServiceProcess grpc;
    static ServiceProcess reference;

    @BeforeAll
    static void startServices() {
        servers = LocalServers.onFreePorts("rolling");
        servers.start();
        database = TestDatabase.of(servers);
        rest = LocalServices.rest("redis-outage-rest", servers, restPort, LocalServices.seeding(HYBRID));
        CompletableFuture.allOf(
                // Its management port exposes /actuator/cache only when asked, as the bench asks.
                CompletableFuture.runAsync(() -> grpc = LocalServices.grpc("redis-outage-grpc", servers, grpcPort,
                        grpcManagementPort, Map.of("TANDEM_CACHE_MODE", "hybrid",
                                "MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE", "health,prometheus,cache"))),
                CompletableFuture.runAsync(() -> reference = LocalServices.rest("redis-outage-reference", servers,
                        referencePort, Map.of("TANDEM_CACHE_MODE", "none")))).join();
    }

    @AfterAll
    static void stopEverything() {
        try {
            for (ServiceProcess service : new ServiceProcess[] {rest, grpc, reference}) {
                if (service != null) {
                    service.close();
                }
            }
        } finally {
            // Stops MariaDB and Redis in whatever state a failure left them ("stop all" skips what is down).
            servers.close();
        }
    }

    @Test
    void redisDownAndBackUnderLoadFailsNoRequestAndLeavesNothingStale() throws Exception {
        ServedBy servedBy = new ServedBy();
        try (RestBalancer balancer = new RestBalancer(List.of(restPort), servedBy);
             RoundRobinGrpcChannel channel = new RoundRobinGrpcChannel(List.of(grpcPort), servedBy);
             SteadyLoad load = new SteadyLoad(database)) {
            LoadWire restWire = new RestLoadWire(balancer);
            LoadWire grpcWire = new GrpcLoadWire(channel);
            load.readers(restWire, 2).writer(restWire, 41).writer(restWire, 42)
                    .readers(grpcWire, 2).writer(grpcWire, 43).writer(grpcWire, 44);
            load.start();

            // Caches warm and healthy under load first.
            Await.until("both caches healthy", BOUND, () -> recovered(restCache()) && recovered(grpcCache()));
            Await.sleep(3000);

            double flushesBefore = flushes(restCache()) + flushes(grpcCache());
            // Redis comes back with a snapshot of what it held as it stopped, as one that persists its
            // data does: the values the writes during the outage made stale are still in L2 then, and
            // only the relays the instances owe keep them from being served. (This pair's Redis saves
            // nothing by itself.)
            Path dump = Path.of(servers.redisCli("CONFIG", "GET", "dir").lines().toList().get(1)).resolve("dump.rdb");
            assertThat(servers.redisCli("SAVE").strip()).as("Redis saved its data").isEqualTo("OK");
            servers.stop("redis");
            log("Redis stopped");
            Await.until("both caches notice that Redis is gone", BOUND, () -> !healthy(restCache()) && !healthy(grpcCache()));
            long restBefore = load.succeeded("REST");
            long grpcBefore = load.succeeded("gRPC");
            Await.sleep(3000);
            long restDuring = load.succeeded("REST") - restBefore;
            long grpcDuring = load.succeeded("gRPC") - grpcBefore;

            long keysBack;
            try {
                servers.start("redis");
                keysBack = Long.parseLong(servers.redisCli("DBSIZE").strip());
            } finally {
                // Loaded (or not, on a failure): the file goes, so that the next test class's Redis
                // on this pair starts empty.
                Files.deleteIfExists(dump);
            }
            log("Redis started again with " + keysBack + " keys");
            assertThat(keysBack).as("keys Redis came back with").isPositive();
            Await.until("both caches healthy again", BOUND, () -> recovered(restCache()) && recovered(grpcCache()));
            log("both caches recovered");
            assertThat(flushes(restCache()) + flushes(grpcCache()))
                    .as("no L1 was flushed for the outage: the log kept both L1s coherent").isEqualTo(flushesBefore);
            Await.sleep(3000);
            load.stop();

            System.out.println("Redis outage: " + load.succeeded() + " requests OK (REST " + load.succeeded("REST")
                    + ", gRPC " + load.succeeded("gRPC") + "), " + load.failed() + " failed; while Redis was down REST answered "
                    + restDuring + ", gRPC " + grpcDuring);
            assertThat(load.failures()).as("failed requests (of " + load.failed() + ")").isEmpty();
            assertThat(load.failed()).isZero();
            assertThat(restDuring).as("REST requests answered while Redis was down").isPositive();
            assertThat(grpcDuring).as("gRPC requests answered while Redis was down").isPositive();
            assertThat(load.writesMissingFromDatabase()).as("writes answered OK but not in the database").isEmpty();

            // The bound: an instance that reaches Redis serves nothing staler than this.
            Thread.sleep(STALENESS_BOUND.toMillis());
            assertThat(staleAnswers(load.createdUsers())).as("answers of the cached services that differ from MariaDB's").isEmpty();
        }
    }

    /**
     * Asks the cached REST and gRPC instances and the uncached reference the same reads; returns
     * each read whose answers differ.
     */
    private List<String> staleAnswers(List<Long> createdUsers) throws InterruptedException {
        List<String> stale = new ArrayList<>();
        RestWire uncached = new RestWire(referencePort);
        RestWire restCached = new RestWire(restPort);
        try (GrpcWire grpcCached = new GrpcWire(grpcPort)) {
            List<Wire> cached = List.of(restCached, grpcCached);
            for (long id = 1; id <= 50; id++) {
                GetGroupRequest request = GetGroupRequest.newBuilder().setId(id).build();
                compare("GetGroup " + id, uncached, cached, w -> w.getGroup(request), stale);
            }
            List<String> subjects = new ArrayList<>(database.column("SELECT DISTINCT subject FROM study_groups ORDER BY subject"));
            subjects.add("");
            for (String subject : subjects) {
                String token = "";
                do {
                    ListGroupsRequest request = ListGroupsRequest.newBuilder().setSubject(subject).setPageSize(10).setPageToken(token).build();
                    ListGroupsResponse page = compare("ListGroups '" + subject + "' page '" + token + "'", uncached, cached,
                            w -> w.listGroups(request), stale);
                    token = page.getNextPageToken();
                } while (!token.isEmpty());
                GetLeaderboardRequest leaderboard = GetLeaderboardRequest.newBuilder().setSubject(subject).setLimit(100).build();
                compare("GetLeaderboard '" + subject + "'", uncached, cached, w -> w.getLeaderboard(leaderboard), stale);
            }
            List<Long> users = new ArrayList<>();
            for (long id = 1; id <= 100; id++) {
                users.add(id);
            }
            users.addAll(createdUsers);
            for (long id : users) {
                GetUserRequest request = GetUserRequest.newBuilder().setId(id).build();
                compare("GetUser " + id, uncached, cached, w -> w.getUser(request), stale);
            }
        }
        return stale;
    }

    private static <T extends Message> T compare(String read, Wire uncached, List<Wire> cached, Function<Wire, T> call,
                                                 List<String> stale) {
        T truth = call.apply(uncached);
        for (Wire wire : cached) {
            T answer = call.apply(wire);
            if (!answer.equals(truth)) {
                stale.add(read + " on " + wire.name() + ": " + oneLine(answer) + " but MariaDB says " + oneLine(truth));
            }
        }
        return truth;
    }

    private static String oneLine(Message message) {
        return message.toString().replace('\n', ' ');
    }

    // ---- the caches' own view (/actuator/cache) -------------------------------------------------

    private Struct restCache() {
        return CacheStatus.of(restPort);
    }

    private Struct grpcCache() {
        return CacheStatus.of(grpcManagementPort);
    }

    /** Redis reachable: the breaker is closed. */
    private static boolean healthy(Struct status) {
        return status.getFieldsOrThrow("breaker").getStringValue().equals("CLOSED");
    }

    /** Healthy, serving L1, and reading L2 again (every invalidation missed in the outage relayed). */
    private static boolean recovered(Struct status) {
        return healthy(status)
                && field(status, "l1").getFieldsOrThrow("trusted").getBoolValue()
                && CacheStatus.l2Readable(status);
    }

    /** Whole-L1 flushes so far, all reasons together. */
    private static double flushes(Struct status) {
        return field(status, "l1Flushes").getFieldsMap().values().stream().mapToDouble(v -> v.getNumberValue()).sum();
    }

    private static Struct field(Struct status, String name) {
        return status.getFieldsOrThrow(name).getStructValue();
    }

    private static void log(String message) {
        System.out.println(Instant.now() + " " + message);
    }
}
