package dev.tandem.rest.admission;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.auth.DevTokens;
import dev.tandem.group.GroupService;
import dev.tandem.group.NewGroup;
import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.rest.deadline.RequestTimeout;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.KeepAliveConnection;
import dev.tandem.testsupport.RowLock;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

import tools.jackson.databind.JsonNode;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission control on REST with a limit of one request in flight: while an update waits for a row
 * lock held by the test, another request is refused at once with 503 problem+json and Retry-After,
 * the actuator still answers, and once the update is through requests are admitted again; an open
 * event stream holds no permit.
 */
@TestPropertySource(properties = {"tandem.admission.enabled=true", "tandem.admission.algorithm=fixed", "tandem.admission.initial-limit=1",
        "tandem.admission.min-limit=1", "tandem.admission.max-limit=1",
        // a delay of no whole seconds: Retry-After rounds it up, as the rate limit's does (gRPC's
        // RetryInfo says 2.5 s)
        "tandem.admission.retry-after=2500ms",
        // a rate limit for one test's own client: the others call as the writer, exempt
        "tandem.rate-limit.enabled=true", "tandem.rate-limit.requests-per-second=0.001", "tandem.rate-limit.burst=3",
        "tandem.rate-limit.exempt-subjects=" + DevTokens.DEV_SUBJECT})
class AdmissionRestTest extends RestIntegrationTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @LocalServerPort int port;
    @Autowired AdmissionControl admission;
    @Autowired GroupService groups;
    @Autowired MeterRegistry meters;
    @Value("${spring.datasource.url}") String url;
    @Value("${spring.datasource.username}") String user;
    @Value("${spring.datasource.password}") String password;

    @Test
    void aRequestOverTheLimitIsRefusedWithRetryAfterWhileTheActuatorStillAnswers() throws Exception {
        CompletableFuture<Integer> update;
        JsonNode refusal;
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            update = updateHoldingThePermit(lock, "Renamed once admitted");

            expectProblem(get("/api/v1/groups/{id}", 2), HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE")
                    .jsonPath("$.detail").value((String detail) -> assertThat(detail).contains("limit of 1 requests in flight"))
                    .jsonPath("$.metadata.limit").isEqualTo("1");
            // 2.5 s rounded up: a client that waits the whole seconds it is told waits long enough
            get("/api/v1/groups/{id}", 2).expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "3")
                    // Not ours: Tomcat ends an HTTP/1.1 connection after every 503 (and 400, 500, ...),
                    // so each refusal costs the client a new connection (README, "What a refusal costs").
                    .expectHeader().valueEquals(HttpHeaders.CONNECTION, "close");
            // Written in Tomcat's pipeline, not by Spring MVC: still the shape RestErrors gives every
            // DomainException (compared below with a 404's, whose resource member stands where the
            // limit's metadata is).
            refusal = bodyOf(get("/api/v1/groups/{id}", 2));
            assertThat(refusal.get("instance").asString()).isEqualTo("/api/v1/groups/2");

            get("/actuator/health").expectStatus().isOk();
            assertThat(update).as("the admitted request still waits for the lock").isNotDone();
        }
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(200);
        // The response reaches the client before the valve's finally gives the permit back: a
        // request made the moment it arrives may still find the one permit taken.
        Await.until("the permit back", BOUND, () -> admission.inFlight() == 0);
        assertThat(readJson("/api/v1/groups/{id}", 2).get("id").asText()).as("admitted again once the permit is back")
                .isEqualTo("2");
        // The same race as above: the read just answered may still hold the one permit.
        Await.until("the permit back after the read", BOUND, () -> admission.inFlight() == 0);
        JsonNode notFound = bodyOf(get("/api/v1/groups/{id}", 9999));
        assertThat(members(refusal, "metadata")).isEqualTo(members(notFound, "resource"));
        assertThat(refusal.get("type")).isEqualTo(notFound.get("type"));
    }

    /** A request the rate limit refuses (429) is a latency sample for the limit, as on gRPC (AdmissionGrpcTest). */
    @Test
    void aRequestTheRateLimitRefusesIsSampledAsOnGrpc() {
        String token = DevTokens.mintFor("rate-limited-" + System.nanoTime(), DevTokens.DEV_SECRET, Duration.ofHours(1));
        long completed = admission.ended(AdmissionControl.Ending.COMPLETED);
        long ignored = admission.ended(AdmissionControl.Ending.IGNORED);
        for (int i = 0; i < 4; i++) {
            anonymous.get().uri("/api/v1/groups/{id}", 2).header(HttpHeaders.AUTHORIZATION, bearer(token)).exchange()
                    .expectStatus().isEqualTo(i < 3 ? HttpStatus.OK : HttpStatus.TOO_MANY_REQUESTS);
            Await.until("the permit back", BOUND, () -> admission.inFlight() == 0);
        }
        assertThat(admission.ended(AdmissionControl.Ending.COMPLETED) - completed).as("requests sampled").isEqualTo(4);
        assertThat(admission.ended(AdmissionControl.Ending.IGNORED) - ignored).as("requests ignored").isZero();
    }

    /**
     * A request refused at the limit takes nothing from its client's rate: the valve is asked before
     * the rate limit, so a client whose requests were refused while the instance was full still has
     * its whole burst (3) once a permit is free, as on gRPC (AdmissionGrpcTest).
     */
    @Test
    void aRefusalTakesNothingFromItsClientsRate() throws Exception {
        String token = DevTokens.mintFor("refused-" + System.nanoTime(), DevTokens.DEV_SECRET, Duration.ofHours(1));
        CompletableFuture<Integer> update;
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            update = updateHoldingThePermit(lock, "Renamed once admitted");
            for (int i = 0; i < 3; i++) {
                anonymous.get().uri("/api/v1/groups/{id}", 2).header(HttpHeaders.AUTHORIZATION, bearer(token)).exchange()
                        .expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
            }
        }
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            Await.until("the permit back", BOUND, () -> admission.inFlight() == 0);
            anonymous.get().uri("/api/v1/groups/{id}", 2).header(HttpHeaders.AUTHORIZATION, bearer(token)).exchange()
                    .expectStatus().isEqualTo(HttpStatus.OK);
        }
    }

    /**
     * A request that met its deadline (504) ran into a limit further down, here a row lock: a drop,
     * which Vegas shrinks on, as a gRPC call's DEADLINE_EXCEEDED is (AdmissionGrpcTest).
     */
    @Test
    void aRequestThatMeetsItsDeadlineIsADrop() throws Exception {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        long completed = admission.ended(AdmissionControl.Ending.COMPLETED);
        long dropped = admission.ended(AdmissionControl.Ending.DROPPED);
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            http.patch().uri("/api/v1/groups/1").header(RequestTimeout.HEADER, "1000").contentType(MediaType.APPLICATION_JSON)
                    .body("""
                            {"group":{"name":"Renamed too late"},"updateMask":"name","expectedVersion":%d}""".formatted(version))
                    .exchange().expectStatus().isEqualTo(HttpStatus.GATEWAY_TIMEOUT);
        }
        Await.until("the permit back", BOUND, () -> admission.inFlight() == 0);
        assertThat(admission.ended(AdmissionControl.Ending.DROPPED) - dropped).as("requests dropped").isEqualTo(1);
        assertThat(admission.ended(AdmissionControl.Ending.COMPLETED) - completed).as("requests sampled").isZero();
    }

    /**
     * A request whose body never arrives (Tomcat's 408 once the request timeout has passed) measures its
     * client, not this instance, and is no sample, as on gRPC a call whose request did not arrive by its
     * deadline is none (AdmissionAtArrival). Failed before: sampled as completed, a 10-s latency that
     * would pull Gradient2's limit down for every client. It waits the default request timeout, as
     * HostileInputRestTest's 408 does (a shorter one would starve this class's other tests).
     */
    @Test
    void aRequestWhoseBodyNeverArrivesIsNoSample() throws Exception {
        long completed = admission.ended(AdmissionControl.Ending.COMPLETED);
        long ignored = admission.ended(AdmissionControl.Ending.IGNORED);
        try (KeepAliveConnection connection = KeepAliveConnection.open(port, BOUND)) {
            connection.send("POST", "/api/v1/users", List.of("Authorization: Bearer " + DevTokens.devWriter(),
                    "Content-Type: application/json", "Content-Length: 60"), null);
            assertThat(connection.read().status()).isEqualTo(HttpStatus.REQUEST_TIMEOUT.value());
        }
        Await.until("the permit back", BOUND, () -> admission.inFlight() == 0);
        assertThat(admission.ended(AdmissionControl.Ending.IGNORED) - ignored).as("requests ignored").isEqualTo(1);
        assertThat(admission.ended(AdmissionControl.Ending.COMPLETED) - completed).as("requests sampled").isZero();
    }

    /**
     * A request that fails inside the server (500) says nothing of the instance's capacity and is no
     * sample, as INTERNAL is none on gRPC (AdmissionAtArrival). Failed before: sampled as completed.
     */
    @Test
    void aRequestThatFailsInsideTheServerIsNoSample() {
        long completed = admission.ended(AdmissionControl.Ending.COMPLETED);
        long ignored = admission.ended(AdmissionControl.Ending.IGNORED);
        get("/test/fail").expectStatus().isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR);
        Await.until("the permit back", BOUND, () -> admission.inFlight() == 0);
        assertThat(admission.ended(AdmissionControl.Ending.IGNORED) - ignored).as("requests ignored").isEqualTo(1);
        assertThat(admission.ended(AdmissionControl.Ending.COMPLETED) - completed).as("requests sampled").isZero();
    }

    /**
     * A watch opens with every permit taken: streams have their own limit, as on gRPC, whose admission
     * never limits a streaming call. Failed before: 503.
     */
    @Test
    void aStreamOpensWhileEveryPermitIsHeld() throws Exception {
        CompletableFuture<Integer> update;
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            update = updateHoldingThePermit(lock, "Renamed once admitted");

            // by its path (curl -N sends Accept: */*), and a stream named in Accept lets no other request by
            expectProblem(http.get().uri("/api/v1/groups/{id}", 2).header("Accept", "application/json, text/event-stream")
                    .exchange(), HttpStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE");
            HttpRequest watch = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/groups/2/events"))
                    .header("Accept", "*/*").build();
            HttpResponse<InputStream> stream = HttpClient.newHttpClient().send(watch, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream events = stream.body()) {
                assertThat(stream.statusCode()).isEqualTo(200);
                assertThat(events.read()).as("the stream is sending").isNotEqualTo(-1);
            }
        }
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(200);
    }

    @Test
    void anOpenStreamHoldsNoPermit() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest watch = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/groups/1/events"))
                .header("Accept", "text/event-stream").build();
        HttpResponse<InputStream> stream = client.send(watch, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream events = stream.body()) {
            assertThat(stream.statusCode()).isEqualTo(200);
            assertThat(events.read()).as("the stream is set up and sending").isNotEqualTo(-1);

            get("/api/v1/groups/{id}", 2).expectStatus().isOk();
        }
    }

    /**
     * A stream the server ends goes through the container a second time (an async dispatch), which
     * must not ask for a permit again: with the one permit held, that second pass was refused, and the
     * refusal's problem+json was written into the event stream after its last event.
     */
    @Test
    void aStreamTheServerEndsIsNotRefusedOnItsWayOut() throws Exception {
        long doomed = groups.create(new NewGroup("Doomed group", "physics", "", 5, 1)).id();
        HttpRequest watch = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/groups/" + doomed + "/events"))
                .header("Accept", "text/event-stream").build();
        HttpResponse<InputStream> stream = HttpClient.newHttpClient().send(watch, HttpResponse.BodyHandlers.ofInputStream());
        CompletableFuture<Integer> update;
        String ending;
        double refusedBefore;
        try (InputStream events = stream.body(); RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            assertThat(events.read()).as("the stream is set up and sending").isNotEqualTo(-1);
            update = updateHoldingThePermit(lock, "Renamed while a stream ends");
            refusedBefore = refused();
            groups.delete(doomed, 0);   // the domain's own call: no request, no permit
            ending = new String(events.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        assertThat(ending).contains("event:deleted").doesNotContain("\"status\":503");
        assertThat(refused()).as("refusals while the stream ended").isEqualTo(refusedBefore);
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(200);
    }

    /**
     * An update of group 1 (renamed {@code name}) that holds the one permit: admitted, it waits for
     * the row lock {@code lock} holds. Its status, once the lock is gone.
     */
    private CompletableFuture<Integer> updateHoldingThePermit(RowLock lock, String name) {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        CompletableFuture<Integer> update = CompletableFuture.supplyAsync(() -> patch("/api/v1/groups/1", """
                {"group":{"name":"%s"},"updateMask":"name","expectedVersion":%d}"""
                .formatted(name, version)).returnResult().getStatus().value());
        assertThat(lock.awaitStatementOnStudyGroups(BOUND)).as("the update holds the only permit").isTrue();
        return update;
    }

    private double refused() {
        return meters.counter("tandem.admission.refused").count();
    }

    private static Set<String> members(JsonNode problem, String own) {
        Set<String> names = new TreeSet<>(problem.propertyNames());
        names.remove(own);
        return names;
    }
}
