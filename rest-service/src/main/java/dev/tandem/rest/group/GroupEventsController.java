package dev.tandem.rest.group;

import dev.tandem.group.GroupService;
import dev.tandem.group.watch.GroupEvent;
import dev.tandem.group.watch.GroupWatch;
import dev.tandem.group.watch.WatchSink;
import dev.tandem.ratelimit.ClientRateLimiter;
import dev.tandem.rest.ratelimit.RateLimitFilter;
import io.swagger.v3.oas.annotations.Hidden;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import java.io.IOException;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * WatchGroup on the REST wire, as Server-Sent Events: {@link GroupWatch}'s events, each with
 * {@code id:} its position. {@code event: group} carries the group as GetGroup's body does;
 * {@code event: deleted} and {@code event: reconnect} end the stream; a heartbeat is a comment with
 * an {@code id:} (an EventSource notes the position and fires no event). A reconnecting EventSource
 * sends {@code Last-Event-ID}, which wins over the {@code since} of the URL it reconnects to.
 *
 * <p>A failure before the stream starts is an ordinary problem+json answer (RestErrors): 404 for
 * an unknown group, 400 for a bad position, 429 at the watcher limit of the instance or of the
 * client (named as the rate limit names it: {@link RateLimitFilter#clientOf}). No request timeout applies to
 * the stream (no async timeout; RequestTimeout's deadline ends when the handler returns).
 */
@RestController
@Tag(name = "StudyGroupService")
@RequestMapping("/api/v1")
public class GroupEventsController {

    /** The request paths of the watch streams, as the container sees them (admission control lets them by). */
    public static final Pattern STREAMS = Pattern.compile("/api/v1/groups/[^/]+/events");

    /** The header an EventSource sends when it reconnects: the id of the last event it received. */
    public static final String LAST_EVENT_ID = "Last-Event-ID";

    private final GroupWatch watch;
    private final GroupService groups;
    private final ClientRateLimiter clients;

    public GroupEventsController(GroupWatch watch, GroupService groups, ClientRateLimiter clients) {
        this.watch = watch;
        this.groups = groups;
        this.clients = clients;
    }

    /**
     * HEAD of a stream: the headers a GET starts it with (or a GET's refusal), and no watch. Without
     * this Spring answers HEAD with the GET handler, whose watch nothing could end: the container
     * drops every write to a HEAD answer, so no send ever fails, and the watch held its place (of the
     * instance's and of the client's, with no token needed) until its group was deleted; and a client
     * waiting for the end of that answer never saw one. It answers as a GET would start, in the same
     * order: a bad position, then what opening refuses now (no log: 501, shutting down: 503, the
     * client's or the instance's watches at their limit: 429), taking no place, then the group read
     * as GetGroup reads it (unknown: 404). Before, it said 200 where a GET got 501, 503 or 429.
     */
    @Hidden
    @RequestMapping(method = RequestMethod.HEAD, path = "/groups/{id}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public ResponseEntity<Void> head(@PathVariable long id, @RequestParam(required = false) String since,
                                     @RequestHeader(name = LAST_EVENT_ID, required = false) String lastEventId,
                                     HttpServletRequest request) {
        position(since, lastEventId);
        watch.checkOpen(RateLimitFilter.clientOf(clients, request));
        groups.get(id);
        return ResponseEntity.ok().contentType(MediaType.TEXT_EVENT_STREAM).build();
    }

    @Operation(operationId = "WatchGroup")
    @GetMapping(path = "/groups/{id}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public SseEmitter watch(@PathVariable long id, @RequestParam(required = false) String since,
                            @RequestHeader(name = LAST_EVENT_ID, required = false) String lastEventId,
                            HttpServletRequest request) {
        OptionalLong position = position(since, lastEventId);
        // No timeout: a watch is not a request, and ends by its own events or when the client leaves.
        SseEmitter emitter = new SseEmitter(0L);
        GroupWatch.Watch started = watch.open(id, position, RateLimitFilter.clientOf(clients, request),
                new EmitterSink(emitter));
        emitter.onCompletion(started::cancel);
        emitter.onError(failure -> started.cancel());
        emitter.onTimeout(started::cancel);
        return emitter;
    }

    private static OptionalLong position(String since, String lastEventId) {
        return lastEventId != null && !lastEventId.isBlank()
                ? GroupWatch.position(lastEventId, LAST_EVENT_ID) : GroupWatch.position(since, "since");
    }

    private record EmitterSink(SseEmitter emitter) implements WatchSink {

        @Override
        public void send(GroupEvent event) throws IOException {
            SseEmitter.SseEventBuilder sse = SseEmitter.event().id(Long.toString(event.position()));
            switch (event) {
                case GroupEvent.Changed changed -> emitter.send(sse.name("group").data(changed.group(), MediaType.APPLICATION_JSON));
                case GroupEvent.Heartbeat ignored -> emitter.send(sse.comment("heartbeat"));
                case GroupEvent.Deleted deleted -> {
                    emitter.send(sse.name("deleted").data(Map.of("id", deleted.groupId()), MediaType.APPLICATION_JSON));
                    emitter.complete();
                }
                case GroupEvent.Reconnect reconnect -> {
                    emitter.send(sse.name("reconnect").data(Map.of("reason", reconnect.reason()), MediaType.APPLICATION_JSON));
                    emitter.complete();
                }
            }
        }
    }
}
