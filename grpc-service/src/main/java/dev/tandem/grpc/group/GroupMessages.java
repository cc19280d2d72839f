package dev.tandem.grpc.group;

import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.group.MembershipView;
import dev.tandem.group.RatingView;
import dev.tandem.group.SessionView;
import dev.tandem.grpc.support.ProtoTime;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.GroupSummary;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.Membership;
import dev.tandem.proto.v1.Rating;
import dev.tandem.proto.v1.StudySession;

import static dev.tandem.grpc.support.ProtoTime.orEmpty;

/**
 * Domain read models to tandem.v1 messages, field by field. The read models already carry the
 * proto's field names, so this is naming-free copying; proto setters reject null, hence orEmpty,
 * and an absent timestamp is left unset rather than sent as the epoch.
 */
final class GroupMessages {

    private GroupMessages() {
    }

    static Group group(GroupView view) {
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
            group.setCreateTime(ProtoTime.timestamp(view.createTime()));
        }
        return group.build();
    }

    static GroupSummary summary(dev.tandem.group.GroupSummary view) {
        return GroupSummary.newBuilder()
                .setId(view.id())
                .setName(orEmpty(view.name()))
                .setSubject(orEmpty(view.subject()))
                .setCapacity(view.capacity())
                .setMemberCount(view.memberCount())
                .setAverageRating(view.averageRating())
                .build();
    }

    static ListGroupsResponse page(GroupPage page) {
        ListGroupsResponse.Builder response = ListGroupsResponse.newBuilder()
                .setNextPageToken(orEmpty(page.nextPageToken()));
        page.groups().forEach(summary -> response.addGroups(summary(summary)));
        return response.build();
    }

    static Leaderboard leaderboard(LeaderboardView view) {
        Leaderboard.Builder leaderboard = Leaderboard.newBuilder().setSubject(orEmpty(view.subject()));
        view.groups().forEach(summary -> leaderboard.addGroups(summary(summary)));
        return leaderboard.build();
    }

    static StudySession session(SessionView view) {
        StudySession.Builder session = StudySession.newBuilder()
                .setId(view.id())
                .setGroupId(view.groupId())
                .setTopic(orEmpty(view.topic()))
                .setDurationMinutes(view.durationMinutes())
                .setLocation(orEmpty(view.location()));
        if (view.startTime() != null) {
            session.setStartTime(ProtoTime.timestamp(view.startTime()));
        }
        return session.build();
    }

    static Membership membership(MembershipView view) {
        Membership.Builder membership = Membership.newBuilder()
                .setGroupId(view.groupId())
                .setUserId(view.userId());
        if (view.joinTime() != null) {
            membership.setJoinTime(ProtoTime.timestamp(view.joinTime()));
        }
        return membership.build();
    }

    static Rating rating(RatingView view) {
        Rating.Builder rating = Rating.newBuilder()
                .setGroupId(view.groupId())
                .setUserId(view.userId())
                .setStars(view.stars())
                .setComment(orEmpty(view.comment()));
        if (view.createTime() != null) {
            rating.setCreateTime(ProtoTime.timestamp(view.createTime()));
        }
        return rating.build();
    }
}
