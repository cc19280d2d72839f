package dev.tandem.group;

import java.util.Set;

/**
 * UpdateGroup's input: new values of which only the {@code paths} (the field mask) are applied,
 * provided the group is still at {@code expectedVersion}.
 */
public record GroupChanges(long id, GroupFields values, Set<String> paths, long expectedVersion) {

    /** The mask paths an update may name, as proto field names. */
    public static final Set<String> UPDATABLE = Set.of("name", "subject", "description", "capacity");
}
