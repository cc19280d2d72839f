package dev.tandem.system;

import dev.tandem.proto.v1.Group;
import dev.tandem.testsupport.ServicePair;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The staleness bound under a saturating read load: a REST and a gRPC instance (hybrid) are read
 * as fast as eight client threads on each wire can ask — the machine's two cores busy, as in the
 * bench's warm cells — while a writer renames group 1 every 100 ms, through each wire in turn.
 * Every read of group 1 notes when it started and which version it got; a read that started more
 * than the staleness bound (+ {@link #MARGIN}) after some write returned must show at least that
 * write's version. No read may break that, and the cache must stay warm meanwhile: its only L1
 * misses are those the writes cause (each instance's own counters). Starvation may make an
 * instance read past its L1 for a moment, never serve an old value past the bound.
 */
class StalenessUnderLoadTest {

    /** tandem.cache.staleness-bound, as both instances run with it (the default). */
    private static final Duration BOUND = Duration.ofSeconds(1);
    /**
     * What a read's start may lag the bound by and still see the old version: a thread descheduled
     * or stopped by a GC between its instance's trust check and its L1 lookup (as in
     * ThreeInstancesCoherenceTest). A missed invalidation (an L1 entry served until its 60 s TTL)
     * still fails by far.
     */
    private static final Duration MARGIN = Duration.ofMillis(250);
    private static final Duration LOAD = Duration.ofSeconds(20);
    private static final int READERS_PER_WIRE = 8;
    /** Reads past an untrusted L1 (its follower late under the load) may be this share of the reads, a moment of the run. */
    private static final double BYPASSES_AT_MOST = 0.05;
    private static final long GROUP = 1;

    static ServicePair pair;

    record Write(long version, long returnedNanos) {
    }

    record Read(String wire, long startNanos, long version) {
    }

    @BeforeAll
    static void startServices() {
        pair = ServicePair.start("staleness-load", Map.of("TANDEM_CACHE_MODE", "hybrid",
                "MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE", "health,prometheus,cache"));
    }

    @AfterAll
    static void stopEverything() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void noReadIsStalerThanTheBoundWhileBothInstancesAreSaturated() throws Exception {
        RestWire restWire = new RestWire(pair.restPort);
        try (GrpcWire grpcWire = new GrpcWire(pair.grpcPort)) {
            List<Wire> wires = List.of(restWire, grpcWire);
            List<Write> writes = new CopyOnWriteArrayList<>();
            ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            LongAdder otherReads = new LongAdder();
            AtomicBoolean running = new AtomicBoolean(true);
            List<String> cacheEndpoints = pair.actuator("cache");
            List<String> metricEndpoints = pair.actuator("prometheus");
            Group first = restWire.getGroup(get(GROUP));
            List<double[]> before = groupCounters(cacheEndpoints, metricEndpoints);
            writes.add(new Write(first.getVersion(), System.nanoTime()));

            List<Thread> threads = new ArrayList<>();
            for (Wire wire : wires) {
                for (int r = 0; r < READERS_PER_WIRE; r++) {
                    long seed = r;
                    threads.add(Thread.ofPlatform().start(() -> {
                        long n = seed;
                        while (running.get()) {
                            try {
                                // Every other read is group 1; the rest cycle over 19 more hot groups.
                                long id = n++ % 2 == 0 ? GROUP : 2 + n % 19;
                                long started = System.nanoTime();
                                Group got = wire.getGroup(get(id));
                                if (id == GROUP) {
                                    reads.add(new Read(wire.name(), started, got.getVersion()));
                                } else {
                                    otherReads.increment();
                                }
                            } catch (RuntimeException e) {
                                failures.add(wire.name() + " read: " + e);
                            }
                        }
                    }));
                }
            }
            Thread writer = Thread.ofPlatform().start(() -> {
                long version = first.getVersion();
                for (int i = 0; running.get(); i++) {
                    try {
                        Group renamed = wires.get(i % 2).updateGroup(dev.tandem.proto.v1.UpdateGroupRequest.newBuilder()
                                .setId(GROUP).setGroup(Group.newBuilder().setName("Renamed under load #" + i))
                                .setUpdateMask(com.google.protobuf.FieldMask.newBuilder().addPaths("name"))
                                .setExpectedVersion(version).build());
                        version = renamed.getVersion();
                        writes.add(new Write(version, System.nanoTime()));
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        failures.add("write: " + e);
                    }
                }
            });
            threads.add(writer);
            Thread.sleep(LOAD.toMillis());
            running.set(false);
            for (Thread t : threads) {
                t.join(Duration.ofSeconds(30));
            }

            List<double[]> after = groupCounters(cacheEndpoints, metricEndpoints);
            long allowed = BOUND.plus(MARGIN).toNanos();
            List<String> stale = new ArrayList<>();
            long worstNanos = 0;
            for (Read read : reads) {
                // The newest write that returned more than bound + margin before this read started.
                long required = Long.MIN_VALUE;
                for (Write w : writes) {
                    if (read.startNanos() - w.returnedNanos() > allowed) {
                        required = Math.max(required, w.version());
                    }
                }
                if (read.version() < required) {
                    stale.add(read.wire() + " read version " + read.version() + " though version " + required
                            + " had returned more than " + BOUND.plus(MARGIN).toMillis() + " ms before");
                }
                // How far behind the newest returned write each read was, for the report.
                for (Write w : writes) {
                    if (w.returnedNanos() < read.startNanos() && w.version() > read.version()) {
                        worstNanos = Math.max(worstNanos, read.startNanos() - w.returnedNanos());
                    }
                }
            }
            System.out.printf("[staleness under load] %d writes, %d reads of the written group, %d other reads in %d s; "
                            + "oldest answer: %d ms after a newer write returned (bound %d ms + %d ms margin)%n",
                    writes.size() - 1, reads.size(), otherReads.sum(), LOAD.toSeconds(),
                    Duration.ofNanos(worstNanos).toMillis(), BOUND.toMillis(), MARGIN.toMillis());
            for (int i = 0; i < cacheEndpoints.size(); i++) {
                double l1Hits = after.get(i)[0] - before.get(i)[0];
                double l1Misses = after.get(i)[1] - before.get(i)[1];
                double l2Hits = after.get(i)[2] - before.get(i)[2];
                double bypasses = after.get(i)[3] - before.get(i)[3];
                double hitRatio = (l1Hits + l2Hits) / (l1Hits + l1Misses);
                System.out.printf("[staleness under load] %s: group cache hit ratio %.4f (L1 hits %.0f, L1 misses %.0f, "
                        + "of them %.0f past an untrusted L1, L2 hits %.0f)%n", cacheEndpoints.get(i), hitRatio, l1Hits,
                        l1Misses, bypasses, l2Hits);
                // Each write makes the next read of its group a miss on each instance, for every reader
                // that asks before the first one has refilled L1: at most READERS_PER_WIRE per write and
                // instance. Twice that, plus a first miss per hot group, bounds the misses the writes
                // explain; a cache that stopped serving under the load would miss tens of thousands of
                // times. Reads past L1 while a starved follower is late (bypasses, also counted as misses)
                // are the design's answer to starvation, not a cold cache: they are bounded apart, as a
                // moment of the run rather than the run.
                double explained = 2.0 * READERS_PER_WIRE * (writes.size() - 1) + 20;
                assertThat(l1Misses - bypasses).as("L1 misses at %s beyond those the writes explain (%.0f); hit ratio %.4f",
                        cacheEndpoints.get(i), explained, hitRatio).isLessThanOrEqualTo(explained);
                assertThat(bypasses).as("reads at %s past an untrusted L1", cacheEndpoints.get(i))
                        .isLessThanOrEqualTo(BYPASSES_AT_MOST * (l1Hits + l1Misses));
            }
            assertThat(failures).as("failed requests").isEmpty();
            assertThat(writes.size()).as("writes made").isGreaterThan(20);
            assertThat(reads.size()).as("reads of the written group").isGreaterThan(1000);
            assertThat(stale).as("reads staler than the bound").isEmpty();
        }
    }

    /** Per instance, {L1 hits, L1 misses, L2 hits, L1 bypasses} of the group cache. */
    private static List<double[]> groupCounters(List<String> cacheEndpoints, List<String> metricEndpoints) {
        List<double[]> counters = new ArrayList<>();
        for (int i = 0; i < cacheEndpoints.size(); i++) {
            double[] levels = groupCounters(cacheEndpoints.get(i));
            counters.add(new double[]{levels[0], levels[1], levels[2], groupBypasses(metricEndpoints.get(i))});
        }
        return counters;
    }

    /** Reads of the group cache that skipped L1 because the log was not read through in time (Prometheus). */
    private static double groupBypasses(String url) {
        return PrometheusText.sum(url, "tandem_cache_l1_bypasses_total", "cache=\"group\"");
    }

    /** {L1 hits, L1 misses, L2 hits} of the group cache, from an instance's /actuator/cache. */
    private static double[] groupCounters(String url) {
        com.google.protobuf.Struct status = CacheStatus.at(url);
        return new double[]{CacheStatus.counter(status, "group", "l1", "hits"), CacheStatus.counter(status, "group", "l1", "misses"),
                CacheStatus.counter(status, "group", "l2", "hits")};
    }

    private static dev.tandem.proto.v1.GetGroupRequest get(long id) {
        return dev.tandem.proto.v1.GetGroupRequest.newBuilder().setId(id).build();
    }
}
