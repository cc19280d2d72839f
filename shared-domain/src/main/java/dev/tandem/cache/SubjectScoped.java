package dev.tandem.cache;

/**
 * A key of a cache whose entries are invalidated per subject, all at once (every page, every
 * limit): a write cannot name the entries it changed, only their subject. Keys are compared with
 * {@code equals} in L1, and in L2 a key is its subject plus its {@link #keySuffix()}.
 */
public interface SubjectScoped {

    /** The subject ("" for the all-subjects entries); what an invalidation of this cache names. */
    String subject();

    /**
     * What tells this key apart from the other keys of its subject, as the last part of its L2 key:
     * unique within the subject, and stable across builds (both services read the same keys).
     */
    String keySuffix();
}
