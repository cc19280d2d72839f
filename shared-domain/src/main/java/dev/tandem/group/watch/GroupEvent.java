package dev.tandem.group.watch;

import dev.tandem.group.GroupView;

/**
 * What a watch of one group sends. Every event carries the log position it was sent at: a client
 * that reconnects with it ({@code since}, {@code Last-Event-ID}) misses nothing.
 *
 * <p>Events are states, not diffs: a {@link Changed} is the group as it is after a change, so a
 * client that missed some of them (it was slow, or away) needs only the latest one.
 */
public sealed interface GroupEvent {

    /** The invalidation log's position as of this event (see {@link dev.tandem.cache.LogSubscriber}). */
    long position();

    /** Whether the stream ends with this event. */
    default boolean last() {
        return false;
    }

    /** The group's state: the first event of a watch, then one after each change that touched it. */
    record Changed(long position, GroupView group) implements GroupEvent {
    }

    /** The group was deleted; the last event. */
    record Deleted(long position, long groupId) implements GroupEvent {
        @Override
        public boolean last() {
            return true;
        }
    }

    /** Nothing changed for a while; the connection is alive and the position moved on. */
    record Heartbeat(long position) implements GroupEvent {
    }

    /**
     * The last event of a watch this instance ends — it is shutting down, or could not read the group
     * after a change: watch again (through any instance) from this position, and miss nothing.
     */
    record Reconnect(long position, String reason) implements GroupEvent {
        @Override
        public boolean last() {
            return true;
        }
    }
}
