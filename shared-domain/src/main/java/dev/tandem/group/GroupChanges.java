package dev.tandem.group;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SequencedSet;
import java.util.Set;

/**
 * UpdateGroup's input: new values of which only the {@code paths} (the field mask) are applied,
 * provided the group is still at {@code expectedVersion}.
 */
public record GroupChanges(long id, GroupFields values, Set<String> paths, long expectedVersion) {

    /**
     * The mask paths an update may name, as proto field names, in the order of the message (an
     * ordered set: error texts name them, and Set.of's order changes from one JVM to the next, so
     * the two services would word the same refusal differently).
     */
    public static final SequencedSet<String> UPDATABLE =
            Collections.unmodifiableSequencedSet(new LinkedHashSet<>(List.of("name", "subject", "description", "capacity")));
}
