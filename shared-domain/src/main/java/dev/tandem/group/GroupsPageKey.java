package dev.tandem.group;

import dev.tandem.cache.SubjectScoped;

/**
 * One ListGroups page in the cache: the subject ("" for all), the effective page size and the id
 * the page starts after (what the page token decodes to, so two equal tokens are one entry).
 */
public record GroupsPageKey(String subject, int pageSize, long afterId) implements SubjectScoped {

    /** {@code <pageSize>:<afterId>}, the end of the page's L2 key. */
    @Override
    public String keySuffix() {
        return pageSize + ":" + afterId;
    }
}
