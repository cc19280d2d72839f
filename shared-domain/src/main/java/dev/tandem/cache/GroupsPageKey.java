package dev.tandem.cache;

/**
 * One ListGroups page: the subject ("" for all), the effective page size and the id the page
 * starts after (what the page token decodes to, so two equal tokens are one entry).
 */
public record GroupsPageKey(String subject, int pageSize, long afterId) implements SubjectScoped {
}
