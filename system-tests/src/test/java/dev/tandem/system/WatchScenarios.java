package dev.tandem.system;

import dev.tandem.proto.v1.DeleteGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.WatchGroupRequest;
import dev.tandem.proto.v1.WatchGroupResponse;
import dev.tandem.system.WireScenarios.Check;
import dev.tandem.system.WireScenarios.Given;
import dev.tandem.system.WireScenarios.Scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static dev.tandem.system.WireScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of {@link WireScenarios} about WatchGroup (README, "Watching a group"): what is the same
 * on both wires, each row run on gRPC and on REST's Server-Sent Events by {@link WireScenariosTest},
 * against the pair that follows the invalidation log (heartbeat {@link BothServices#WATCH_HEARTBEAT}).
 * Every change a watcher must hear of is made through the other instance's wire ({@link Given#other}),
 * so each row also shows a change crossing instances through the log. What only one wire shows
 * (SSE's Last-Event-ID, HEAD and comment format; gRPC's flow control and cancellation) and what needs
 * small limits (max-watchers, per client) stay in GroupEventsRestTest and WatchGroupGrpcTest; the
 * watch rule itself (which event replaces which) is GroupWatchTest's.
 */
final class WatchScenarios {

    private WatchScenarios() {
    }

    /**
     * How long a row waits for a message: a bound, not a speed (a change takes about a poll interval
     * and a read, a heartbeat comes every half second), wide for a machine shared by other builds.
     */
    static final Duration BOUND = Duration.ofSeconds(20);

    /** The rows for the pair that follows the log. */
    static List<Scenario> rows() {
        List<Scenario> rows = new ArrayList<>();
        rows.add(watching("WatchGroup: the first message is the group as GetGroup reads it, at a position",
                g -> g.group(10).member(42).rating(43, 5).session(),
                (watch, w, g) -> {
                    WatchGroupResponse first = watch.next(BOUND);
                    assertThat(first.hasGroup()).as("the first message %s is the group", first).isTrue();
                    assertThat(first.getGroup()).isEqualTo(w.getGroup(get(g.id())));
                    assertThat(first.getPosition()).matches("[0-9]+");
                }));
        changes().forEach((change, made) -> rows.add(watching(
                "WatchGroup: " + change + " through the other wire arrives as the group's new state", g -> g.group(10).member(43),
                (watch, w, g) -> {
                    WatchGroupResponse first = watch.next(BOUND);
                    made.accept(g.other, g);
                    WatchGroupResponse changed = watch.next(m -> m.hasGroup() && !m.getGroup().equals(first.getGroup()), BOUND);
                    // Never before this instance's cache shows it: its GetGroup answers that state from then on.
                    assertThat(changed.getGroup()).isEqualTo(w.getGroup(get(g.id())));
                    // Not always past it: a position stays behind while a number below it may still commit.
                    assertThat(position(changed)).isGreaterThanOrEqualTo(position(first));
                })));
        rows.add(ok("WatchGroup: resumed from its last position, it starts with the state it missed", g -> g.group(10),
                (w, g) -> {
                    String seen;
                    try (Wire.Watch away = w.watchGroup(watch(g.id(), ""))) {
                        seen = away.next(BOUND).getPosition();
                    }
                    g.other.joinGroup(join(g.id(), 42));
                    return w.watchGroup(watch(g.id(), seen));
                },
                (Wire.Watch resumed, Wire w, Given g) -> {
                    try (resumed) {
                        WatchGroupResponse first = resumed.next(BOUND);
                        assertThat(first.hasGroup()).as("the first message %s after a missed change is the group", first).isTrue();
                        // This instance may read the group before its follower has read the join (its L1
                        // still holding the state the first watch read): the join's state follows then.
                        WatchGroupResponse joined = first.getGroup().getMemberCount() == 2 ? first
                                : resumed.next(m -> m.hasGroup() && m.getGroup().getMemberCount() == 2, BOUND);
                        assertThat(joined.getGroup()).isEqualTo(w.getGroup(get(g.id())));
                    }
                }));
        rows.add(ok("WatchGroup: resumed from a position after the group's last change, it sends no state until the next",
                g -> g.group(10),
                (w, g) -> {
                    // A position the log vouches for: past the group's last change. (Positions stay
                    // behind while a number below them may still commit: a resume from one of those
                    // gets the state again, as README says, which is not this row.)
                    long lastChange = Long.parseLong(g.database.value("SELECT MAX(seq) FROM cache_invalidations"));
                    String seen;
                    try (Wire.Watch away = w.watchGroup(watch(g.id(), ""))) {
                        seen = away.next(m -> m.hasHeartbeat() && position(m) >= lastChange, BOUND).getPosition();
                    }
                    return w.watchGroup(watch(g.id(), seen));
                },
                (Wire.Watch resumed, Wire w, Given g) -> {
                    try (resumed) {
                        WatchGroupResponse first = resumed.next(BOUND);
                        assertThat(first.hasHeartbeat()).as("the first message %s after nothing was missed", first).isTrue();
                        g.other.joinGroup(join(g.id(), 42));
                        assertThat(resumed.next(m -> !m.hasHeartbeat(), BOUND).getGroup().getMemberCount()).isEqualTo(2);
                    }
                }));
        rows.add(watching("WatchGroup: a deletion through the other wire is the last message, and the stream ends",
                g -> g.group(10),
                (watch, w, g) -> {
                    WatchGroupResponse first = watch.next(BOUND);
                    g.other.deleteGroup(DeleteGroupRequest.newBuilder().setId(g.id()).build());
                    WatchGroupResponse last = watch.next(m -> !m.hasHeartbeat(), BOUND);
                    assertThat(last.hasDeleted()).as("the message %s after the deletion", last).isTrue();
                    assertThat(last.getDeleted().getId()).isEqualTo(g.id());
                    assertThat(position(last)).isGreaterThanOrEqualTo(position(first));
                    // REST: the response ends; gRPC: status OK (an error would be thrown here).
                    assertThat(watch.next(BOUND)).as("the stream after the deletion").isNull();
                }));
        rows.add(watching("WatchGroup: a quiet group gets heartbeats, which carry the position on", g -> g.group(10),
                (watch, w, g) -> {
                    WatchGroupResponse first = watch.next(BOUND);
                    WatchGroupResponse beat = watch.next(BOUND);
                    assertThat(beat.hasHeartbeat()).as("the message %s after the state of a quiet group", beat).isTrue();
                    assertThat(position(beat)).isGreaterThanOrEqualTo(position(first));
                }));
        rows.add(ok("WatchGroup: a position ahead of the log's (a log recreated since) starts with the state", g -> g.group(10),
                (w, g) -> w.watchGroup(watch(g.id(), "999999999999999999")),
                (Wire.Watch watch, Wire w, Given g) -> {
                    try (watch) {
                        assertThat(watch.next(BOUND).getGroup()).isEqualTo(w.getGroup(get(g.id())));
                    }
                }));
        Stream.of(UNKNOWN, 0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE).forEach(id -> rows.add(notFound(
                "WatchGroup: unknown id " + id + " is NOT_FOUND", NOTHING, (w, g) -> firstMessage(w, watch(id, "")),
                "group", named(id))));
        rows.add(notFound("WatchGroup: a group deleted while the watcher was away is NOT_FOUND", g -> g.group(10).deleted(),
                (w, g) -> firstMessage(w, watch(g.id(), "1")), "group", g -> String.valueOf(g.id())));
        for (String since : new String[] {"-3", "yesterday", "1.5", "1e3", "9999999999999999999"}) {
            rows.add(invalid("WatchGroup: since '" + since + "' is no position", g -> g.group(10),
                    (w, g) -> firstMessage(w, watch(g.id(), since)), "since"));
        }
        rows.add(invalid("WatchGroup: a bad since is INVALID_ARGUMENT before the group is looked for", NOTHING,
                (w, g) -> firstMessage(w, watch(UNKNOWN, "-3")), "since"));
        return rows;
    }

    /** For the pair without a cache: WireScenarios.all() runs these. */
    static Stream<Scenario> withoutTheLog() {
        return Stream.of(fails("WatchGroup: without the invalidation log (tandem.cache.mode=none) is UNIMPLEMENTED",
                g -> g.group(10), (w, g) -> firstMessage(w, watch(g.id(), "")), "UNIMPLEMENTED", null, named(null)));
    }

    /** Each change README names a watcher hears of, made through a wire on a group with members 1 and 43. */
    private static Map<String, BiConsumer<Wire, Given>> changes() {
        Map<String, BiConsumer<Wire, Given>> changes = new LinkedHashMap<>();
        changes.put("a join", (other, g) -> other.joinGroup(join(g.id(), 42)));
        changes.put("a leave", (other, g) -> other.leaveGroup(leave(g.id(), 43)));
        changes.put("a rating", (other, g) -> other.rateGroup(rate(g.id(), 43, 4).build()));
        changes.put("an update", (other, g) -> other.updateGroup(update(g.id(), g.group.getVersion(),
                Group.newBuilder().setName("Renamed while watched").build(), "name")));
        changes.put("a new session", (other, g) -> other.scheduleSession(session(g.id()).build()));
        return changes;
    }

    /** A row that watches the row's group from the start, then checks the stream; the watch ends with the row. */
    private static Scenario watching(String name, Consumer<Given> given, Check<Wire.Watch> check) {
        return ok(name, given, (w, g) -> w.watchGroup(watch(g.id(), "")), (Wire.Watch watch, Wire w, Given g) -> {
            try (watch) {
                check.check(watch, w, g);
            }
        });
    }

    static WatchGroupRequest watch(long id, String since) {
        return WatchGroupRequest.newBuilder().setId(id).setSince(since).build();
    }

    /** The first message of a new watch, which then ends: for the rows refused before the stream starts. */
    private static WatchGroupResponse firstMessage(Wire wire, WatchGroupRequest request) {
        try (Wire.Watch watch = wire.watchGroup(request)) {
            return watch.next(BOUND);
        }
    }

    private static long position(WatchGroupResponse message) {
        assertThat(message.getPosition()).as("the position of %s", message).matches("[0-9]+");
        return Long.parseLong(message.getPosition());
    }
}
