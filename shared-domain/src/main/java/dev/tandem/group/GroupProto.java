package dev.tandem.group;

import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.Rating;
import dev.tandem.proto.v1.StudySession;

import java.util.List;

import static dev.tandem.config.ProtoValues.instant;
import static dev.tandem.config.ProtoValues.orEmpty;
import static dev.tandem.config.ProtoValues.strict;
import static dev.tandem.config.ProtoValues.timestamp;

/**
 * The group read models as tandem.v1 messages, field by field — the one mapping of these types,
 * used by the gRPC wire (views → messages) and by the cache's L2 codecs ({@link GroupCaches}: both
 * ways), so Redis holds exactly the bytes the gRPC wire would send, whichever service wrote them.
 * The read models already carry the proto's field names, so this is naming-free copying.
 *
 * <p>To the wire: proto setters reject null, hence orEmpty, and an absent timestamp is left unset
 * rather than sent as the epoch. Back from bytes (the cache only): a message with fields this build
 * does not know is refused ({@link dev.tandem.config.ProtoValues#strict}); every column is NOT
 * NULL and times are whole microseconds at most, so a view read back equals the one the database
 * gave.
 */
public final class GroupProto {

    private GroupProto() {
    }

    // ---- views to messages -------------------------------------------------------------------

    public static Group group(GroupView view) {
        Group.Builder group = Group.newBuilder()
                .setId(view.id())
                .setName(orEmpty(view.name()))
                .setSubject(orEmpty(view.subject()))
                .setDescription(orEmpty(view.description()))
                .setCapacity(view.capacity())
                .setOwnerId(view.ownerId())
                .setOwnerName(orEmpty(view.ownerName()))
                .setMemberCount(view.memberCount())
                .setAverageRating(view.averageRating())
                .setRatingCount(view.ratingCount())
                .setVersion(view.version());
        view.nextSessions().forEach(session -> group.addNextSessions(session(session)));
        if (view.createTime() != null) {
            group.setCreateTime(timestamp(view.createTime()));
        }
        return group.build();
    }

    public static dev.tandem.proto.v1.GroupSummary summary(GroupSummary view) {
        return dev.tandem.proto.v1.GroupSummary.newBuilder()
                .setId(view.id())
                .setName(orEmpty(view.name()))
                .setSubject(orEmpty(view.subject()))
                .setCapacity(view.capacity())
                .setMemberCount(view.memberCount())
                .setAverageRating(view.averageRating())
                .build();
    }

    public static ListGroupsResponse page(GroupPage page) {
        ListGroupsResponse.Builder response = ListGroupsResponse.newBuilder()
                .setNextPageToken(orEmpty(page.nextPageToken()));
        page.groups().forEach(summary -> response.addGroups(summary(summary)));
        return response.build();
    }

    public static Leaderboard leaderboard(LeaderboardView view) {
        Leaderboard.Builder leaderboard = Leaderboard.newBuilder().setSubject(orEmpty(view.subject()));
        view.groups().forEach(summary -> leaderboard.addGroups(summary(summary)));
        return leaderboard.build();
    }

    public static StudySession session(SessionView view) {
        StudySession.Builder session = StudySession.newBuilder()
                .setId(view.id())
                .setGroupId(view.groupId())
                .setTopic(orEmpty(view.topic()))
                .setDurationMinutes(view.durationMinutes())
                .setLocation(orEmpty(view.location()));
        if (view.startTime() != null) {
            session.setStartTime(timestamp(view.startTime()));
        }
        return session.build();
    }

    public static Membership membership(MembershipView view) {
        Membership.Builder membership = Membership.newBuilder()
                .setGroupId(view.groupId())
                .setUserId(view.userId());
        if (view.joinTime() != null) {
            membership.setJoinTime(timestamp(view.joinTime()));
        }
        return membership.build();
    }

    public static Rating rating(RatingView view) {
        Rating.Builder rating = Rating.newBuilder()
                .setGroupId(view.groupId())
                .setUserId(view.userId())
                .setStars(view.stars())
                .setComment(orEmpty(view.comment()));
        if (view.createTime() != null) {
            rating.setCreateTime(timestamp(view.createTime()));
        }
        return rating.build();
    }

    // ---- messages to views (what the cache reads back from L2) -------------------------------

    public static GroupView groupView(Group message) {
        Group g = strict(message);
        List<SessionView> sessions = g.getNextSessionsList().stream().map(GroupProto::sessionView).toList();
        return new GroupView(g.getId(), g.getName(), g.getSubject(), g.getDescription(), g.getCapacity(),
                g.getOwnerId(), g.getOwnerName(), g.getMemberCount(), g.getAverageRating(), g.getRatingCount(),
                sessions, g.getVersion(), instant(g.getCreateTime()));
    }

    public static SessionView sessionView(StudySession s) {
        return new SessionView(s.getId(), s.getGroupId(), s.getTopic(), instant(s.getStartTime()),
                s.getDurationMinutes(), s.getLocation());
    }

    public static GroupSummary summaryView(dev.tandem.proto.v1.GroupSummary message) {
        dev.tandem.proto.v1.GroupSummary s = strict(message);
        return new GroupSummary(s.getId(), s.getName(), s.getSubject(), s.getCapacity(), s.getMemberCount(),
                s.getAverageRating());
    }

    public static GroupPage pageView(ListGroupsResponse message) {
        ListGroupsResponse r = strict(message);
        return new GroupPage(r.getGroupsList().stream().map(GroupProto::summaryView).toList(), r.getNextPageToken());
    }

    public static LeaderboardView leaderboardView(Leaderboard message) {
        Leaderboard l = strict(message);
        return new LeaderboardView(l.getSubject(), l.getGroupsList().stream().map(GroupProto::summaryView).toList());
    }
}
