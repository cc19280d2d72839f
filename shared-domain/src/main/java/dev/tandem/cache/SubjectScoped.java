package dev.tandem.cache;

/**
 * A key of a cache whose entries are invalidated per subject, all at once (every page, every
 * limit): a write to a group cannot name the pages it changed, only their subject.
 */
interface SubjectScoped {
    String subject();
}
