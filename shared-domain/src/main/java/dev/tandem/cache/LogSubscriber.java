package dev.tandem.cache;

import java.util.List;

/**
 * Hears of every committed change this instance's log follower reads, after the follower applied it
 * to L1 (so a read through the cache then sees the change). Called on the follower's thread, which
 * keeps every L1 within its staleness bound: an implementation hands the changes over and returns,
 * it never reads or blocks there.
 */
@FunctionalInterface
public interface LogSubscriber {

    /**
     * @param changes  what the last pass read, in the order read (log order, except a row whose
     *                 transaction committed late arrives after rows numbered above it); may be empty
     *                 when only the position moved
     * @param position every row up to this seq has been read and handed over (by this or an earlier
     *                 call); it never decreases while the log is not recreated. A client that saw this
     *                 position misses nothing by asking for the rows above it.
     */
    void followed(List<CommittedChange> changes, long position);
}
