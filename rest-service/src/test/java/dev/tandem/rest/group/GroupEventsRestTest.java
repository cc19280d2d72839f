package dev.tandem.rest.group;

import dev.tandem.auth.DevTokens;
import dev.tandem.group.watch.GroupWatch;
import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalBalancer;
import dev.tandem.testsupport.ServerSentEvents;
import dev.tandem.testsupport.ServerSentEvents.Event;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.client.RestTestClient;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET /api/v1/groups/{id}/events: what only the SSE stream shows (Last-Event-ID, HEAD, the
 * heartbeat comment, the compose balancer's route, no request timeout) and the watcher limits,
 * which need RestIntegrationTest's small ones (at most 4 watches and 3 per client; heartbeat 500
 * ms). What both wires promise alike (the first state, changes, resume from since, deletion,
 * heartbeats, 404, a bad since) is a row of the system tests' WatchScenarios, run on both; the
 * watch rule itself is GroupWatchTest's. Read with the JDK's HTTP client, line by line, as a client
 * would; its watches without a token are all one client, 127.0.0.1.
 */
class GroupEventsRestTest extends RestIntegrationTest {

    private static final long GROUP = 1;
    private static final Duration WAIT = Duration.ofSeconds(20);

    @LocalServerPort int port;
    @Autowired GroupWatch watch;
    @Value("${tandem.watch.max-watchers}") int maxWatchers;
    @Value("${tandem.watch.max-watchers-per-client}") int maxWatchersPerClient;

    private final HttpClient client = HttpClient.newHttpClient();
    private final List<Events> opened = new ArrayList<>();

    @AfterEach
    void closeStreams() {
        opened.forEach(Events::close);
        client.close();
        Await.until("every watch to be released", Duration.ofSeconds(10), () -> watch.watching() == 0);
    }

    /**
     * The compose balancer's events route (deploy/compose/nginx.conf), outside its REST limit: a
     * watcher behind it gets the group and then each change as it is sent, on a stream nginx keeps
     * open past the replica's heartbeats.
     */
    @Test
    void throughTheComposeBalancerAWatcherGetsTheGroupAndThenItsChanges() throws Exception {
        try (LocalBalancer balancer = LocalBalancer.start(port, FreePort.pick(), null)) {
            Events events = open(balancer.restPort, "/api/v1/groups/" + GROUP + "/events", Map.of());
            assertThat(events.status).isEqualTo(200);

            Event first = events.next(e -> "group".equals(e.name()));
            int members = json.readTree(first.data()).get("memberCount").asInt();
            post("/api/v1/groups/{id}/members", "{\"userId\": " + outsider() + "}", GROUP).expectStatus().isCreated();

            Event changed = events.next(e -> "group".equals(e.name()) && json.readTree(e.data()).get("memberCount").asInt() != members);
            assertThat(json.readTree(changed.data()).get("memberCount").asInt()).isEqualTo(members + 1);
            events.close();
        }
    }

    /**
     * As an EventSource reconnects: the same URL (whose since is not even a position) and
     * Last-Event-ID, which wins. (Resuming from ?since= is WatchScenarios', on both wires.)
     */
    @Test
    void lastEventIdResumesWithTheChangeMissedAndWinsOverSince() throws Exception {
        Events first = open("/api/v1/groups/" + GROUP + "/events", Map.of());
        String seen = first.next(e -> "group".equals(e.name())).id();
        first.close();
        post("/api/v1/groups/{id}/members", "{\"userId\": " + outsider() + "}", GROUP).expectStatus().isCreated();

        Events resumed = open("/api/v1/groups/" + GROUP + "/events?since=stale", Map.of("Last-Event-ID", seen));

        assertThat(resumed.status).isEqualTo(200);
        assertThat(json.readTree(resumed.next(e -> "group".equals(e.name())).data()))
                .isEqualTo(readJson("/api/v1/groups/{id}", GROUP));
    }

    @Test
    void anIdleStreamGetsHeartbeatCommentsThatCarryThePosition() throws Exception {
        Events events = open("/api/v1/groups/" + GROUP + "/events", Map.of());
        Event beat = events.next(e -> "heartbeat".equals(e.comment()));
        assertThat(beat.id()).matches("[0-9]+");
        assertThat(beat.name()).isNull();
    }

    @Test
    void theStreamOutlivesTheRequestTimeout() throws Exception {
        Events events = open("/api/v1/groups/" + GROUP + "/events", Map.of("X-Request-Timeout", "1000"));
        events.next(e -> "group".equals(e.name()));
        Await.sleep(1500);
        post("/api/v1/groups/{id}/members", "{\"userId\": " + outsider() + "}", GROUP).expectStatus().isCreated();

        Event changed = events.next(e -> "group".equals(e.name()));
        assertThat(json.readTree(changed.data()).get("id").asLong()).isEqualTo(GROUP);
    }

    /** A bad since is WatchScenarios' (both wires); a bad Last-Event-ID is named as such. */
    @Test
    void aLastEventIdThatIsNoPositionIs400NamingIt() {
        expectInvalid(http.get().uri("/api/v1/groups/{id}/events", GROUP)
                .header("Accept", "text/event-stream").header("Last-Event-ID", "abc").exchange(), "Last-Event-ID");
    }

    /**
     * The stream is text/event-stream only: curl's and an EventSource's Accept get it, one without
     * it is a 406 problem+json (INVALID_ARGUMENT, as every 406), and no watch is opened for it.
     */
    @Test
    void anAcceptWithoutTheEventStreamIs406AndOpensNoWatch() throws Exception {
        for (String accept : List.of("*/*", "text/event-stream", "text/*, application/json;q=0.5")) {
            Events events = open("/api/v1/groups/" + GROUP + "/events", Map.of("Accept", accept));
            assertThat(events.status).as(accept).isEqualTo(200);
            assertThat(events.contentType).as(accept).startsWith("text/event-stream");
            events.close();
        }
        for (String accept : List.of("application/json", "application/x-protobuf", "text/event-stream;q=0, */*")) {
            expectProblem(http.get().uri("/api/v1/groups/{id}/events", GROUP).header("Accept", accept).exchange(),
                    HttpStatus.NOT_ACCEPTABLE, "INVALID_ARGUMENT");
        }
        Await.until("the accepted watches to be released", Duration.ofSeconds(10), () -> watch.watching() == 0);
    }

    /**
     * A HEAD of the stream answers the headers a GET starts it with and opens no watch. Failed
     * before: Spring answered HEAD with the GET handler, whose watch no send could end (the
     * container drops a HEAD answer's body), so each HEAD held a place until its group was deleted,
     * and the JDK's client, waiting for the end of that answer, failed with "request timed out".
     */
    @Test
    void aHeadOfTheStreamAnswersItsHeadersAndHoldsNoPlace() throws Exception {
        for (int i = 0; i <= maxWatchersPerClient; i++) {
            HttpResponse<Void> head = head("/api/v1/groups/" + GROUP + "/events");
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/event-stream"));
        }
        assertThat(watch.watching()).as("watches held after the HEADs were answered").isZero();
        // As a GET's refusals, without their bodies.
        assertThat(head("/api/v1/groups/999999/events").statusCode()).isEqualTo(404);
        assertThat(head("/api/v1/groups/" + GROUP + "/events?since=-3").statusCode()).isEqualTo(400);
    }

    /** A HEAD from 127.0.0.1 with no token, answered within {@link #WAIT} or failed (a HEAD of a watch once hung). */
    private HttpResponse<Void> head(String path) throws Exception {
        return head(path, null);
    }

    /** {@link #head(String)}, with {@code authorization} when not null. */
    private HttpResponse<Void> head(String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).header("Accept", "text/event-stream").timeout(WAIT);
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.discarding());
    }

    /** The instance's places taken by two clients, each under its own cap: a third is refused. */
    @Test
    void watchesBeyondTheLimitAre429WithRetryAfter() throws Exception {
        for (int i = 0; i < maxWatchers; i++) {
            Map<String, String> client = i < maxWatchersPerClient ? Map.of() : Map.of("Authorization", bearer(WRITER));
            open("/api/v1/groups/" + GROUP + "/events", client).next(e -> "group".equals(e.name()));
        }
        expectTooManyWatches(anonymous.get().uri("/api/v1/groups/{id}/events", GROUP)
                .header("Authorization", bearer(DevTokens.mintFor("third", DevTokens.DEV_SECRET, Duration.ofHours(1)))),
                "max_watchers", maxWatchers);
        // A HEAD says what a GET would start with (failed before: 200).
        assertThat(head("/api/v1/groups/" + GROUP + "/events", bearer(DevTokens.mintFor("third", DevTokens.DEV_SECRET,
                Duration.ofHours(1)))).statusCode()).isEqualTo(429);
    }

    /**
     * One client at its cap is refused as at the instance's, naming its own limit, and another
     * client still watches. Failed before: the client's fourth watch was a 200 stream.
     */
    @Test
    void aClientsWatchesBeyondItsOwnLimitAre429WithRetryAfter() throws Exception {
        for (int i = 0; i < maxWatchersPerClient; i++) {
            open("/api/v1/groups/" + GROUP + "/events", Map.of()).next(e -> "group".equals(e.name()));
        }
        // The same client as the JDK's: no token, from 127.0.0.1 (localhost might be ::1, another client).
        expectTooManyWatches(anonymous.get().uri("http://127.0.0.1:" + port + "/api/v1/groups/{id}/events", GROUP),
                "max_watchers_per_client", maxWatchersPerClient);
        HttpResponse<Void> head = head("/api/v1/groups/" + GROUP + "/events");
        assertThat(head.statusCode()).as("a HEAD of that client (200 before)").isEqualTo(429);
        assertThat(head.headers().firstValue("Retry-After")).hasValue("5");

        Events another = open("/api/v1/groups/" + GROUP + "/events", Map.of("Authorization", bearer(WRITER)));
        assertThat(another.status).as("a client with a token of its own").isEqualTo(200);
    }

    /** 429 problem+json RESOURCE_EXHAUSTED, Retry-After 5 s, the limit that refused in the metadata. */
    private void expectTooManyWatches(RestTestClient.RequestHeadersSpec<?> watch, String limit, int value) {
        expectProblem(watch.header("Accept", "text/event-stream").exchange()
                .expectHeader().valueEquals("Retry-After", "5"), HttpStatus.TOO_MANY_REQUESTS, "RESOURCE_EXHAUSTED")
                .jsonPath("$.metadata." + limit).isEqualTo(String.valueOf(value));
    }

    // ---- helpers -----------------------------------------------------------------------------

    private long outsider() {
        return jdbc.sql("SELECT MIN(id) FROM users WHERE id NOT IN (SELECT user_id FROM group_members WHERE group_id = ?)")
                .param(GROUP).query(Long.class).single();
    }

    private Events open(String path, Map<String, String> headers) throws Exception {
        return open(port, path, headers);
    }

    private Events open(int port, String path, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Accept", "text/event-stream");
        headers.forEach(request::setHeader);
        HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        Events events = new Events(response);
        opened.add(events);
        return events;
    }

    /** The events of one response, parsed by a virtual thread as they arrive. */
    static final class Events {
        static final Event END = new Event(null, null, null, "end of stream");

        final int status;
        final String contentType;
        private final InputStream body;
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

        Events(HttpResponse<InputStream> response) {
            this.status = response.statusCode();
            this.contentType = response.headers().firstValue("Content-Type").orElse("");
            this.body = response.body();
            Thread.ofVirtual().start(this::read);
        }

        private void read() {
            try {
                ServerSentEvents.read(body, events::add);
            } catch (IOException e) {
                // closed by the test
            }
            events.add(END);
        }

        /** The next event that is {@code wanted} (or END), skipping others. */
        Event next(Predicate<Event> wanted) throws InterruptedException {
            long until = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < until) {
                Event e = events.poll(100, TimeUnit.MILLISECONDS);
                if (e == END || e != null && wanted.test(e)) {
                    return e;
                }
            }
            throw new AssertionError("no such event within " + WAIT);
        }

        void close() {
            try {
                body.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }
}
