package dev.tandem.cache;

/**
 * One committed change as the invalidation log records it, handed to {@link LogSubscriber}s: what
 * a write made stale, or a flush (everything may have changed: an admin flush, a reseed, a log this
 * instance could not read through). The cache knows no feature: a feature asks whether a change
 * {@link #touches} one of its entries.
 *
 * @param seq the row's sequence number in the log; 0 for a flush this instance made up because it
 *            may have missed rows (the log restarted, or was not read for longer than its retention)
 */
public record CommittedChange(long seq, boolean flush, Invalidation invalidation) {

    static CommittedChange of(InvalidationLog.Entry entry) {
        return new CommittedChange(entry.seq(), entry.kind() == InvalidationLog.Kind.FLUSH,
                entry.invalidation() == null ? Invalidation.create() : entry.invalidation());
    }

    static CommittedChange missedRows() {
        return new CommittedChange(0, true, Invalidation.create());
    }

    /** Whether this change may have changed {@code key} of {@code cache}: it names it, or it is a flush. */
    public boolean touches(CacheName<?> cache, Object key) {
        return flush || invalidation.names(cache, key);
    }
}
