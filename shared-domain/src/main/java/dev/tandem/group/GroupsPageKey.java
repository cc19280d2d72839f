package dev.tandem.group;

import dev.tandem.cache.ScopedKey;

/**
 * One ListGroups page in the cache: the subject ("" for all), the effective page size and the id
 * the page starts after (what the page token decodes to, so two equal tokens are one entry).
 */
public record GroupsPageKey(String subject, int pageSize, long afterId) implements ScopedKey {

    /** A page's scope is its subject (see {@link GroupCaches}). */
    @Override
    public String scope() {
        return subject;
    }

    /** {@code <pageSize>:<afterId>}, the end of the page's L2 key. */
    @Override
    public String keySuffix() {
        return pageSize + ":" + afterId;
    }
}
