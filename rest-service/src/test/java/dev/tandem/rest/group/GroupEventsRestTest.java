package dev.tandem.rest.group;

import dev.tandem.auth.DevTokens;
import dev.tandem.group.watch.GroupWatch;
import dev.tandem.rest.RestIntegrationTest;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.FreePort;
import dev.tandem.testsupport.LocalBalancer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
 * GET /api/v1/groups/{id}/events: how GroupWatch's events and refusals look as Server-Sent Events
 * (the watch rule itself is GroupWatchTest's). Heartbeat 500 ms, at most 4 watches and 3 per client
 * (RestIntegrationTest). Read with the JDK's HTTP client, line by line, as a client would; its
 * watches without a token are all one client, 127.0.0.1.
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

    @Test
    void theFirstEventIsTheGroupAsGetGroupAnswersAndAWriteSendsItsNewState() throws Exception {
        Events events = open("/api/v1/groups/" + GROUP + "/events", Map.of());
        assertThat(events.status).isEqualTo(200);
        assertThat(events.contentType).startsWith("text/event-stream");

        Event first = events.next(e -> "group".equals(e.name));
        assertThat(first.id).matches("[0-9]+");
        assertThat(json.readTree(first.data)).isEqualTo(readJson("/api/v1/groups/{id}", GROUP));

        int members = json.readTree(first.data).get("memberCount").asInt();
        post("/api/v1/groups/{id}/members", "{\"userId\": " + outsider() + "}", GROUP).expectStatus().isCreated();

        Event changed = events.next(e -> "group".equals(e.name) && json.readTree(e.data).get("memberCount").asInt() != members);
        assertThat(json.readTree(changed.data).get("memberCount").asInt()).isEqualTo(members + 1);
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

            Event first = events.next(e -> "group".equals(e.name));
            int members = json.readTree(first.data).get("memberCount").asInt();
            post("/api/v1/groups/{id}/members", "{\"userId\": " + outsider() + "}", GROUP).expectStatus().isCreated();

            Event changed = events.next(e -> "group".equals(e.name) && json.readTree(e.data).get("memberCount").asInt() != members);
            assertThat(json.readTree(changed.data).get("memberCount").asInt()).isEqualTo(members + 1);
            events.close();
        }
    }

    @Test
    void lastEventIdResumesWithTheChangeMissedAndWinsOverSince() throws Exception {
        // As an EventSource reconnects: the same URL (whose since is not even a position) and Last-Event-ID.
        assertResumesWithTheChangeMissed(seen -> open("/api/v1/groups/" + GROUP + "/events?since=stale",
                Map.of("Last-Event-ID", seen)));
    }

    @Test
    void sinceResumesToo() throws Exception {
        assertResumesWithTheChangeMissed(seen -> open("/api/v1/groups/" + GROUP + "/events?since=" + seen, Map.of()));
    }

    private void assertResumesWithTheChangeMissed(Resume resume) throws Exception {
        Events first = open("/api/v1/groups/" + GROUP + "/events", Map.of());
        String seen = first.next(e -> "group".equals(e.name)).id;
        first.close();
        post("/api/v1/groups/{id}/members", "{\"userId\": " + outsider() + "}", GROUP).expectStatus().isCreated();

        Events resumed = resume.from(seen);

        assertThat(resumed.status).isEqualTo(200);
        assertThat(json.readTree(resumed.next(e -> "group".equals(e.name)).data))
                .isEqualTo(readJson("/api/v1/groups/{id}", GROUP));
    }

    private interface Resume {
        Events from(String seen) throws Exception;
    }

    @Test
    void deletionSendsDeletedAndEndsTheStream() throws Exception {
        Events events = open("/api/v1/groups/" + GROUP + "/events", Map.of());
        events.next(e -> "group".equals(e.name));

        delete("/api/v1/groups/{id}", GROUP).expectStatus().isNoContent();

        Event deleted = events.next(e -> "deleted".equals(e.name));
        assertThat(json.readTree(deleted.data).get("id").asLong()).isEqualTo(GROUP);
        assertThat(events.next(e -> true)).as("the stream ends after deleted").isSameAs(Events.END);
    }

    @Test
    void anIdleStreamGetsHeartbeatCommentsThatCarryThePosition() throws Exception {
        Events events = open("/api/v1/groups/" + GROUP + "/events", Map.of());
        Event beat = events.next(e -> "heartbeat".equals(e.comment));
        assertThat(beat.id).matches("[0-9]+");
        assertThat(beat.name).isNull();
    }

    @Test
    void theStreamOutlivesTheRequestTimeout() throws Exception {
        Events events = open("/api/v1/groups/" + GROUP + "/events", Map.of("X-Request-Timeout", "1000"));
        events.next(e -> "group".equals(e.name));
        Await.sleep(1500);
        post("/api/v1/groups/{id}/members", "{\"userId\": " + outsider() + "}", GROUP).expectStatus().isCreated();

        Event changed = events.next(e -> "group".equals(e.name));
        assertThat(json.readTree(changed.data).get("id").asLong()).isEqualTo(GROUP);
    }

    @Test
    void anUnknownGroupIs404ProblemJson() throws Exception {
        expectProblem(http.get().uri("/api/v1/groups/{id}/events", 999_999)
                .header("Accept", "text/event-stream").exchange(), HttpStatus.NOT_FOUND, "NOT_FOUND");
    }

    @Test
    void aPositionThatIsNotOneIs400NamingItsSource() {
        expectInvalid(http.get().uri("/api/v1/groups/{id}/events?since=-3", GROUP)
                .header("Accept", "text/event-stream").exchange(), "since");
        expectInvalid(http.get().uri("/api/v1/groups/{id}/events", GROUP)
                .header("Accept", "text/event-stream").header("Last-Event-ID", "abc").exchange(), "Last-Event-ID");
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
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).header("Accept", "text/event-stream")
                .timeout(WAIT).build(), HttpResponse.BodyHandlers.discarding());
    }

    /** The instance's places taken by two clients, each under its own cap: a third is refused. */
    @Test
    void watchesBeyondTheLimitAre429WithRetryAfter() throws Exception {
        for (int i = 0; i < maxWatchers; i++) {
            Map<String, String> client = i < maxWatchersPerClient ? Map.of() : Map.of("Authorization", bearer(WRITER));
            open("/api/v1/groups/" + GROUP + "/events", client).next(e -> "group".equals(e.name));
        }
        expectTooManyWatches(anonymous.get().uri("/api/v1/groups/{id}/events", GROUP)
                .header("Authorization", bearer(DevTokens.mintFor("third", DevTokens.DEV_SECRET, Duration.ofHours(1)))),
                "max_watchers", maxWatchers);
    }

    /**
     * One client at its cap is refused as at the instance's, naming its own limit, and another
     * client still watches. Failed before: the client's fourth watch was a 200 stream.
     */
    @Test
    void aClientsWatchesBeyondItsOwnLimitAre429WithRetryAfter() throws Exception {
        for (int i = 0; i < maxWatchersPerClient; i++) {
            open("/api/v1/groups/" + GROUP + "/events", Map.of()).next(e -> "group".equals(e.name));
        }
        // The same client as the JDK's: no token, from 127.0.0.1 (localhost might be ::1, another client).
        expectTooManyWatches(anonymous.get().uri("http://127.0.0.1:" + port + "/api/v1/groups/{id}/events", GROUP),
                "max_watchers_per_client", maxWatchersPerClient);

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
        headers.forEach(request::header);
        HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        Events events = new Events(response);
        opened.add(events);
        return events;
    }

    /** One block of a text/event-stream: its fields (null when absent). */
    record Event(String id, String name, String data, String comment) {
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
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String id = null, name = null, comment = null;
                StringBuilder data = null;
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (id != null || name != null || data != null || comment != null) {
                            events.add(new Event(id, name, data == null ? null : data.toString(), comment));
                        }
                        id = name = comment = null;
                        data = null;
                    } else if (line.startsWith(":")) {
                        comment = line.substring(1);
                    } else {
                        int colon = line.indexOf(':');
                        String field = colon < 0 ? line : line.substring(0, colon);
                        String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
                        switch (field) {
                            case "id" -> id = value;
                            case "event" -> name = value;
                            case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                            default -> { }
                        }
                    }
                }
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
