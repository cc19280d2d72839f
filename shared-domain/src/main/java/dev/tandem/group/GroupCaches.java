package dev.tandem.group;

import dev.tandem.cache.CacheCodec;
import dev.tandem.cache.CacheName;
import dev.tandem.cache.Invalidation;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The caches of the group feature, and what its writes invalidate. Values travel through Redis as
 * the tandem.v1 messages of {@link GroupProto}, the mapping the gRPC wire uses too.
 *
 * <ul>
 *   <li>{@link #GROUP}: GetGroup, by id; invalidated by id. A group lists its next sessions, so an
 *       entry does not outlive the start of the first one.</li>
 *   <li>{@link #GROUPS_PAGE}: ListGroups pages ({@link GroupsPageKey}); invalidated a subject at a
 *       time.</li>
 *   <li>{@link #LEADERBOARD}: GetLeaderboard ({@link LeaderboardKey}); invalidated a subject at a
 *       time.</li>
 * </ul>
 * Pages and leaderboards are scoped caches whose scope is the subject ("" for the all-subjects
 * listing and leaderboard): a write cannot name the pages it changed, only the subjects of the
 * groups it touched, so the keys' {@link dev.tandem.cache.ScopedKey#scope()} is their subject and
 * {@link #pagesOf} and {@link #leaderboardsOf} invalidate subjects.
 *
 * <p>The names are metric tags and parts of Redis keys and log rows: they do not change.
 */
public final class GroupCaches {

    private GroupCaches() {
    }

    public static final CacheName<GroupView> GROUP = CacheName.keyed("group",
            CacheCodec.of(view -> GroupProto.group(view).toByteArray(),
                    bytes -> GroupProto.groupView(Group.parseFrom(bytes))),
            GroupCaches::untilNextSession);

    public static final CacheName<GroupPage> GROUPS_PAGE = CacheName.scoped("groups-page",
            CacheCodec.of(page -> GroupProto.page(page).toByteArray(),
                    bytes -> GroupProto.pageView(ListGroupsResponse.parseFrom(bytes))));

    public static final CacheName<LeaderboardView> LEADERBOARD = CacheName.scoped("leaderboard",
            CacheCodec.of(board -> GroupProto.leaderboard(board).toByteArray(),
                    bytes -> GroupProto.leaderboardView(Leaderboard.parseFrom(bytes))));

    /** Every cache of the feature, for the {@link dev.tandem.cache.CacheCatalog}. */
    public static final List<CacheName<?>> ALL = List.of(GROUP, GROUPS_PAGE, LEADERBOARD);

    /** The group {@code id}. */
    public static Invalidation group(long id) {
        return Invalidation.create().add(GROUP, id);
    }

    /** Every ListGroups page of {@code subject}, and of the all-subjects listing that includes it. */
    public static Invalidation pagesOf(String subject) {
        return Invalidation.create().add(GROUPS_PAGE, subject).add(GROUPS_PAGE, "");
    }

    /** Every leaderboard of {@code subject}, and the all-subjects leaderboard. */
    public static Invalidation leaderboardsOf(String subject) {
        return Invalidation.create().add(LEADERBOARD, subject).add(LEADERBOARD, "");
    }

    /** A group is true until its first listed session starts (then the next ones move up). */
    private static Optional<Duration> untilNextSession(GroupView group, Instant now) {
        if (group.nextSessions().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Duration.between(now, group.nextSessions().getFirst().startTime()));
    }
}
