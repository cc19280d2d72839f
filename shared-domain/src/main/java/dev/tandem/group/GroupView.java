package dev.tandem.group;

import java.time.Instant;
import java.util.List;

/**
 * The read model of one group. Field names are the proto's JSON names, so the REST wire can
 * serialise it as it is and the gRPC wire maps it field by field.
 */
public record GroupView(
        long id,
        String name,
        String subject,
        String description,
        int capacity,
        long ownerId,
        String ownerName,
        int memberCount,
        double averageRating,
        int ratingCount,
        List<SessionView> nextSessions,
        long version,
        Instant createTime) {
}
