package dev.tandem.system;

import com.google.protobuf.FieldMask;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalServers;
import dev.tandem.testsupport.LocalServices;
import dev.tandem.testsupport.ServiceProcess;
import dev.tandem.testsupport.StallingProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer killed with SIGKILL right after a commit whose relay to Redis it could not make loses
 * nothing. A REST and a gRPC instance (hybrid) share MariaDB and Redis; the gRPC one has group 1 in
 * its L1 and in L2. The REST instance reaches Redis through a proxy that the test stalls, so that it
 * alone loses Redis; it renames the group — the commit succeeds, the relay times out — and is killed
 * at once. The gRPC instance, whose Redis works throughout, must answer the new name within the
 * staleness bound, and the old value must be gone from L2: its follower read the row from the
 * invalidation log in MariaDB and, finding no relay marker, relayed it itself. Before the log, the
 * invalidation lived only in the writer's memory and died with it: the other instance noticed the
 * writer fall silent and flushed its L1, then refilled it from L2, which still held the old value
 * until its TTL (5 minutes).
 */
class WriterKilledAfterCommitTest {

    private static final Map<String, String> HYBRID = Map.of("TANDEM_CACHE_MODE", "hybrid");
    private static final Duration STALENESS_BOUND = Duration.ofSeconds(1);
    /** Measured from the write's return, which is later than its commit: lenient by that much. */
    private static final Duration MARGIN = Duration.ofMillis(500);
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final long GROUP = 1;

    static LocalServers servers;
    static StallingProxy writersRedis;
    static final int restPort = FreePort.pick();
    static final int grpcPort = FreePort.pick();
    static final int grpcManagementPort = FreePort.pick();
    static ServiceProcess writer;
    static ServiceProcess reader;

    @BeforeAll
    static void startServices() throws Exception {
        servers = LocalServers.onFreePorts("writer-killed");
        servers.start();
        writersRedis = new StallingProxy(servers.redisPort);
        Map<String, String> writerEnv = new java.util.HashMap<>(LocalServices.seeding(HYBRID));
        writerEnv.put("SPRING_DATA_REDIS_PORT", String.valueOf(writersRedis.port()));
        writer = LocalServices.rest("killed-writer", servers, restPort, writerEnv);
        // /actuator/cache exposed (as the bench asks): the test waits for the reader to read L2
        Map<String, String> readerEnv = new java.util.HashMap<>(HYBRID);
        readerEnv.put("MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE", "health,cache");
        reader = LocalServices.grpc("surviving-reader", servers, grpcPort, grpcManagementPort, readerEnv);
    }

    @AfterAll
    static void stopEverything() throws Exception {
        try {
            if (reader != null) {
                reader.close();
            }
            if (writer != null && writer.isAlive()) {
                writer.close();
            }
        } finally {
            if (writersRedis != null) {
                writersRedis.close();
            }
            if (servers != null) {
                servers.close();
            }
        }
    }

    @Test
    void aWriterKilledBeforeItsRelayLosesNothing() throws Exception {
        RestWire writerWire = new RestWire(restPort);
        try (GrpcWire readerWire = new GrpcWire(grpcPort)) {
            // The one read below must go through L2 to fill it: until its log follower has read the
            // log through once, an instance reads (and fills) neither (CI once read too early: the
            // read went to MySQL alone and L2 stayed empty for the whole minute).
            Await.until("the reader reads L2", PATIENCE, () -> CacheStatus.l2Readable(CacheStatus.of(grpcManagementPort)));
            Group old = readerWire.getGroup(GetGroupRequest.newBuilder().setId(GROUP).build());
            String key = "tandem:cache:group:" + GROUP;
            Await.until("the reader's read put the group in L2", PATIENCE,
                    () -> servers.redisCli("GET", key).contains(old.getName()));
            String renamed = "Renamed by a writer about to die";

            writersRedis.stall();
            Group updated = writerWire.updateGroup(UpdateGroupRequest.newBuilder().setId(GROUP)
                    .setGroup(Group.newBuilder().setName(renamed))
                    .setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                    .setExpectedVersion(old.getVersion())
                    .build());
            long returned = System.nanoTime();
            assertThat(updated.getName()).isEqualTo(renamed);
            writer.kill();
            assertThat(writer.isAlive()).isFalse();

            // The bound limits when a read that answers the old name may start, not how soon the
            // answer arrives (a read started in time can be answered late on a loaded machine), so
            // the reader is polled patiently and the start of its last stale read is what is held
            // to the bound.
            Freshness.Lag lag = Freshness.pollUntilFresh("the reader", () ->
                            readerWire.getGroup(GetGroupRequest.newBuilder().setId(GROUP).build()).getName().equals(renamed),
                    returned, STALENESS_BOUND.plus(MARGIN), PATIENCE);
            System.out.printf("[writer killed] the other instance served the write %d ms after it returned (last stale read started at %d ms, %d reads)%n",
                    lag.firstFreshAnswer().toMillis(), lag.lastStaleReadStart().toMillis(), lag.reads());
            assertThat(lag.lastStaleReadStart())
                    .as("the reader answered the old name from a read started %s after the write returned (bound %s + margin %s)",
                            lag.lastStaleReadStart(), STALENESS_BOUND, MARGIN)
                    .isLessThanOrEqualTo(STALENESS_BOUND.plus(MARGIN));
            // The reader answers the new name only once its follower has relayed the row (before
            // applying it to L1), so this is a check that the relay reached Redis, not a race.
            Await.until("the old value is gone from L2 (relayed by the reader)", PATIENCE,
                    () -> !servers.redisCli("GET", key).contains(old.getName()));
            assertThat(readerWire.getGroup(GetGroupRequest.newBuilder().setId(GROUP).build()).getName()).isEqualTo(renamed);
        }
    }
}
