package dev.tandem.system;

import com.google.protobuf.FieldMask;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.UpdateGroupRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer killed with SIGKILL right after a commit whose relay to Redis it could not make loses
 * nothing. A REST and a gRPC instance (hybrid) share MariaDB and Redis; the gRPC one has group 1 in
 * its L1 and in L2. Redis is frozen (SIGSTOP), the REST instance renames the group — the commit
 * succeeds, the relay times out — and is killed at once. The gRPC instance must answer the new name
 * within the staleness bound (its follower reads the row from the invalidation log in MariaDB), and
 * once Redis runs again (SIGCONT) the old value must be gone from L2 as well: the follower found the
 * row without a marker and relayed it itself. Before the log, that invalidation lived only in the
 * writer's memory: it died with it, and the old value stayed in L2 until the TTL (5 minutes).
 */
class WriterKilledAfterCommitTest {

    private static final Map<String, String> HYBRID = Map.of("TANDEM_CACHE_MODE", "hybrid");
    private static final Duration STALENESS_BOUND = Duration.ofSeconds(1);
    /** Measured from the write's return, which is later than its commit: lenient by that much. */
    private static final Duration MARGIN = Duration.ofMillis(500);
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final long GROUP = 1;

    static LocalServers servers;
    static final int restPort = ServiceProcess.freePort();
    static final int grpcPort = ServiceProcess.freePort();
    static final int grpcManagementPort = ServiceProcess.freePort();
    static ServiceProcess writer;
    static ServiceProcess reader;

    @BeforeAll
    static void startServices() {
        servers = new LocalServers("writer-killed", 13347, 16419);
        servers.start();
        writer = LocalServices.rest("killed-writer", servers, restPort, LocalServices.seeding(HYBRID));
        reader = LocalServices.grpc("surviving-reader", servers, grpcPort, grpcManagementPort, HYBRID);
    }

    @AfterAll
    static void stopEverything() {
        try {
            if (reader != null) {
                reader.close();
            }
            if (writer != null && writer.isAlive()) {
                writer.close();
            }
        } finally {
            if (servers != null) {
                servers.signal("redis", "CONT");
                servers.close();
            }
        }
    }

    @Test
    void aWriterKilledBeforeItsRelayLosesNothing() throws Exception {
        RestWire writerWire = new RestWire(restPort);
        try (GrpcWire readerWire = new GrpcWire(grpcPort)) {
            Group old = readerWire.getGroup(GetGroupRequest.newBuilder().setId(GROUP).build());
            String key = "tandem:cache:group:" + GROUP;
            Await.until("the reader's read put the group in L2", PATIENCE,
                    () -> servers.redisCli("GET", key).contains(old.getName()));
            String renamed = "Renamed by a writer about to die";

            servers.signal("redis", "STOP");
            long returned;
            try {
                Group updated = writerWire.updateGroup(UpdateGroupRequest.newBuilder().setId(GROUP)
                        .setGroup(Group.newBuilder().setName(renamed))
                        .setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                        .setExpectedVersion(old.getVersion())
                        .build());
                returned = System.nanoTime();
                assertThat(updated.getName()).isEqualTo(renamed);
                writer.kill();
                assertThat(writer.isAlive()).isFalse();

                // Redis is still frozen: the reader learns of the write from the log alone.
                Await.until("the reader answers the new name within the bound", STALENESS_BOUND.plus(MARGIN), () ->
                        readerWire.getGroup(GetGroupRequest.newBuilder().setId(GROUP).build()).getName().equals(renamed));
                long seen = System.nanoTime();
                System.out.printf("[writer killed] the reader served the write %d ms after it returned, Redis frozen%n",
                        Duration.ofNanos(seen - returned).toMillis());
            } finally {
                servers.signal("redis", "CONT");
            }

            Await.until("the old value is gone from L2 (relayed by the reader)", PATIENCE,
                    () -> !servers.redisCli("GET", key).contains(old.getName()));
            assertThat(readerWire.getGroup(GetGroupRequest.newBuilder().setId(GROUP).build()).getName()).isEqualTo(renamed);
        }
    }
}
