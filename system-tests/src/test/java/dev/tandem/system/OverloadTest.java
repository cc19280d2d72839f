package dev.tandem.system;

import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.ServicePair;
import dev.tandem.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both jars driven past their concurrency limit at once (#17): 32 clients on each wire read hot
 * groups and create users as fast as they can, against instances whose adaptive limit (the default
 * algorithm) may not exceed 4 requests in flight, so most requests are over it on any machine. Every
 * answer must be a success or a well-formed refusal (UNAVAILABLE with a retry delay: 503 problem+json
 * + Retry-After, RetryInfo), answered without waiting for a permit; nothing a refused write asked for
 * is written, and every accepted one is; every permit is given back, once; the instances answer
 * normally afterwards, without a restart;
 * and the cache did not flush its L1 meanwhile (nothing was lost, so nothing needed flushing).
 */
class OverloadTest {

    private static final Duration LOAD = Duration.ofSeconds(8);
    private static final int CLIENTS_PER_WIRE = 32;
    private static final Map<String, String> LIMITED = Map.of(
            "TANDEM_CACHE_MODE", "hybrid",
            "TANDEM_ADMISSION_ENABLED", "true",
            "TANDEM_ADMISSION_INITIAL_LIMIT", "4",
            "TANDEM_ADMISSION_MIN_LIMIT", "2",
            "TANDEM_ADMISSION_MAX_LIMIT", "4",
            "MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE", "health,prometheus,cache");
    /**
     * Not a speed figure: half the services' 10-s request timeout, a bound that tells refusals made at
     * once from requests that waited in a queue until they were late. Asked of the median refusal:
     * the slowest one measures the machine as much as the services (3.7 s on a 2-core machine with a
     * load average of 9, 3.6 s on one of 10), and one more busy build would have failed the test.
     */
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(5);
    /** The services' request timeout (tandem.limits.request-timeout): no refusal waits as long as that. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    static ServicePair pair;

    /** What one wire's clients saw. */
    static final class Outcomes {
        final LongAdder admitted = new LongAdder();
        final LongAdder refused = new LongAdder();
        final ConcurrentLinkedQueue<Long> refusalNanos = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> createdEmails = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> refusedEmails = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    }

    @BeforeAll
    static void startServices() {
        pair = ServicePair.start("overload", LIMITED);
    }

    @AfterAll
    static void stopEverything() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void refusalsAreFastAndWellFormedNothingIsLostAndBothRecoverWithoutARestart() throws Exception {
        List<String> cacheEndpoints = pair.actuator("cache");
        try (GrpcWire grpcWire = new GrpcWire(pair.grpcPort)) {
            List<Wire> wires = List.of(new RestWire(pair.restPort), grpcWire);
            for (Wire wire : wires) {
                for (long id = 1; id <= 20; id++) {
                    wire.getGroup(group(id));
                }
            }
            List<String> flushesBefore = cacheEndpoints.stream().map(OverloadTest::l1Flushes).toList();

            AtomicBoolean running = new AtomicBoolean(true);
            Map<Wire, Outcomes> outcomes = Map.of(wires.get(0), new Outcomes(), wires.get(1), new Outcomes());
            List<Thread> clients = new ArrayList<>();
            for (Wire wire : wires) {
                Outcomes seen = outcomes.get(wire);
                for (int c = 0; c < CLIENTS_PER_WIRE; c++) {
                    int client = c;
                    clients.add(Thread.ofPlatform().start(() -> {
                        for (long n = 0; running.get(); n++) {
                            boolean write = n % 5 == 0;
                            String email = "overload-" + wire.name().toLowerCase() + "-" + client + "-" + n + "@example.test";
                            long started = System.nanoTime();
                            try {
                                if (write) {
                                    wire.createUser(CreateUserRequest.newBuilder().setName("Overload " + client + " " + n)
                                            .setEmail(email).build());
                                    seen.createdEmails.add(email);
                                } else {
                                    wire.getGroup(group(1 + n % 20));
                                }
                                seen.admitted.increment();
                            } catch (Wire.Failure failure) {
                                long took = System.nanoTime() - started;
                                if (!failure.code.equals("UNAVAILABLE") || failure.retryAfter == null
                                        || failure.retryAfter.isZero()) {
                                    seen.failures.add(wire.name() + ": " + failure.getMessage());
                                    continue;
                                }
                                seen.refused.increment();
                                seen.refusalNanos.add(took);
                                if (write) {
                                    seen.refusedEmails.add(email);
                                }
                            } catch (RuntimeException | AssertionError e) {
                                seen.failures.add(wire.name() + ": " + e);
                            }
                        }
                    }));
                }
            }
            Thread.sleep(LOAD.toMillis());
            running.set(false);
            for (Thread client : clients) {
                // A request that never ends (GrpcWire sets no deadline) would keep its client running.
                assertThat(client.join(Duration.ofSeconds(60))).as("%s ended its last request", client).isTrue();
            }

            TestDatabase database = TestDatabase.of(pair.servers);
            for (Wire wire : wires) {
                Outcomes seen = outcomes.get(wire);
                List<Long> refusals = seen.refusalNanos.stream().sorted().toList();
                Duration median = refusals.isEmpty() ? Duration.ZERO : Duration.ofNanos(refusals.get(refusals.size() / 2));
                Duration slowest = refusals.isEmpty() ? Duration.ZERO : Duration.ofNanos(refusals.getLast());
                System.out.printf("[overload] %s: %d admitted, %d refused in %d s, refusals' median %d ms, slowest %d ms; "
                                + "%d users created, %d creations refused%n", wire.name(), seen.admitted.sum(),
                        seen.refused.sum(), LOAD.toSeconds(), median.toMillis(), slowest.toMillis(),
                        seen.createdEmails.size(), seen.refusedEmails.size());
                assertThat(seen.failures).as("%s answers that were neither a success nor a refusal", wire.name()).isEmpty();
                assertThat(seen.refused.sum()).as("%s requests refused (the load was over the limit)", wire.name()).isPositive();
                assertThat(seen.admitted.sum()).as("%s requests admitted", wire.name()).isPositive();
                // else "a refused write wrote nothing" below would hold of no write at all
                assertThat(seen.refusedEmails).as("%s creations refused", wire.name()).isNotEmpty();
                assertThat(median).as("%s refusals' median", wire.name()).isLessThan(REFUSED_WITHIN);
                assertThat(slowest).as("%s slowest refusal", wire.name()).isLessThan(REQUEST_TIMEOUT);
                for (String email : seen.createdEmails) {
                    assertThat(database.value("SELECT COUNT(*) FROM users WHERE email = ?", email))
                            .as("accepted creation of %s", email).isEqualTo("1");
                }
                for (String email : seen.refusedEmails) {
                    assertThat(database.value("SELECT COUNT(*) FROM users WHERE email = ?", email))
                            .as("refused creation of %s", email).isEqualTo("0");
                }
            }

            // Every permit went back, once: a leaked one would leave the count above 0 for good (and
            // the limit that much lower), one given back twice below it. The count falls just after
            // each answer is sent, hence a bounded wait.
            for (String metrics : pair.actuator("prometheus")) {
                Await.until("no request in flight at " + metrics, Duration.ofSeconds(30),
                        () -> PrometheusText.sum(metrics, "tandem_admission_in_flight") == 0);
            }

            // Recovered, in the same processes: every request is admitted again.
            assertThat(pair.alive()).isTrue();
            for (Wire wire : wires) {
                for (long id = 1; id <= 20; id++) {
                    assertThat(wire.getGroup(group(id)).getId()).isEqualTo(id);
                }
            }
            assertThat(cacheEndpoints.stream().map(OverloadTest::l1Flushes).toList())
                    .as("L1 flushes by reason, per instance: none while nothing was lost").isEqualTo(flushesBefore);
        }
    }

    private static GetGroupRequest group(long id) {
        return GetGroupRequest.newBuilder().setId(id).build();
    }

    /** The instance's {@code l1Flushes} member of /actuator/cache (flushes by reason), as JSON text. */
    private static String l1Flushes(String url) {
        try {
            return com.google.protobuf.util.JsonFormat.printer().print(CacheStatus.at(url).getFieldsOrThrow("l1Flushes"));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException(url, e);
        }
    }
}
