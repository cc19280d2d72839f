package dev.tandem.group.watch;

import java.util.OptionalLong;

/**
 * Where a watch's events go: one client's stream, implemented by each wire. Called by one thread at
 * a time, never by the log follower.
 */
public interface WatchSink {

    /**
     * Whether the client takes another event now (gRPC: the call is ready). While it does not, the
     * watch keeps only the latest event and sends it when the wire calls {@link GroupWatch.Watch#resume()}.
     */
    default boolean ready() {
        return true;
    }

    /**
     * Sends one event; after a {@link GroupEvent#last()} one, ends the stream. Throws when the client
     * is gone, which ends the watch.
     */
    void send(GroupEvent event) throws Exception;

    /**
     * The watch ended because an event waited {@code tandem.watch.stall-timeout} for a client that
     * {@link #ready()} said takes none: ends the stream without waiting for the client, telling it
     * to watch again from {@code resumeFrom}, the position of the last event it was sent (empty when
     * it was sent none: it watches again without one and gets the state). Called at most once, never
     * during a send; a sink that is always ready is never asked.
     */
    default void stalled(OptionalLong resumeFrom) {
    }
}
