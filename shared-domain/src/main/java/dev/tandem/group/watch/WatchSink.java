package dev.tandem.group.watch;

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
}
