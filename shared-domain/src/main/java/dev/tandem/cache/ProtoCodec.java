package dev.tandem.cache;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupSummary;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.group.SessionView;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.StudySession;
import dev.tandem.proto.v1.User;
import dev.tandem.user.UserView;

import java.time.Instant;
import java.util.List;

/**
 * The read models as tandem.v1 messages, used only at the L2 boundary: the services keep
 * returning the records, and Redis holds the same bytes whichever service wrote them. Every
 * mapping is exact both ways (all columns are NOT NULL, times are whole microseconds at most), so a
 * value read from L2 equals the one the database gave.
 */
final class ProtoCodec {

    private ProtoCodec() {
    }

    // ---- group -------------------------------------------------------------------------------

    static byte[] encodeGroup(GroupView g) {
        Group.Builder b = Group.newBuilder()
                .setId(g.id()).setName(g.name()).setSubject(g.subject()).setDescription(g.description())
                .setCapacity(g.capacity()).setOwnerId(g.ownerId()).setOwnerName(g.ownerName())
                .setMemberCount(g.memberCount()).setAverageRating(g.averageRating()).setRatingCount(g.ratingCount())
                .setVersion(g.version()).setCreateTime(timestamp(g.createTime()));
        for (SessionView s : g.nextSessions()) {
            b.addNextSessions(StudySession.newBuilder().setId(s.id()).setGroupId(s.groupId()).setTopic(s.topic())
                    .setStartTime(timestamp(s.startTime())).setDurationMinutes(s.durationMinutes())
                    .setLocation(s.location()));
        }
        return b.build().toByteArray();
    }

    static GroupView decodeGroup(byte[] bytes) throws InvalidProtocolBufferException {
        Group g = strict(Group.parseFrom(bytes));
        List<SessionView> sessions = g.getNextSessionsList().stream()
                .map(s -> new SessionView(s.getId(), s.getGroupId(), s.getTopic(), instant(s.getStartTime()),
                        s.getDurationMinutes(), s.getLocation()))
                .toList();
        return new GroupView(g.getId(), g.getName(), g.getSubject(), g.getDescription(), g.getCapacity(),
                g.getOwnerId(), g.getOwnerName(), g.getMemberCount(), g.getAverageRating(), g.getRatingCount(),
                sessions, g.getVersion(), instant(g.getCreateTime()));
    }

    // ---- list page and leaderboard -----------------------------------------------------------

    static byte[] encodePage(GroupPage page) {
        return ListGroupsResponse.newBuilder()
                .addAllGroups(page.groups().stream().map(ProtoCodec::summary).toList())
                .setNextPageToken(page.nextPageToken())
                .build().toByteArray();
    }

    static GroupPage decodePage(byte[] bytes) throws InvalidProtocolBufferException {
        ListGroupsResponse r = strict(ListGroupsResponse.parseFrom(bytes));
        return new GroupPage(r.getGroupsList().stream().map(ProtoCodec::summary).toList(), r.getNextPageToken());
    }

    static byte[] encodeLeaderboard(LeaderboardView board) {
        return Leaderboard.newBuilder()
                .setSubject(board.subject())
                .addAllGroups(board.groups().stream().map(ProtoCodec::summary).toList())
                .build().toByteArray();
    }

    static LeaderboardView decodeLeaderboard(byte[] bytes) throws InvalidProtocolBufferException {
        Leaderboard l = strict(Leaderboard.parseFrom(bytes));
        return new LeaderboardView(l.getSubject(), l.getGroupsList().stream().map(ProtoCodec::summary).toList());
    }

    private static dev.tandem.proto.v1.GroupSummary summary(GroupSummary s) {
        return dev.tandem.proto.v1.GroupSummary.newBuilder().setId(s.id()).setName(s.name()).setSubject(s.subject())
                .setCapacity(s.capacity()).setMemberCount(s.memberCount()).setAverageRating(s.averageRating())
                .build();
    }

    private static GroupSummary summary(dev.tandem.proto.v1.GroupSummary s) {
        strict(s);
        return new GroupSummary(s.getId(), s.getName(), s.getSubject(), s.getCapacity(), s.getMemberCount(),
                s.getAverageRating());
    }

    // ---- user --------------------------------------------------------------------------------

    static byte[] encodeUser(UserView u) {
        return User.newBuilder().setId(u.id()).setName(u.name()).setEmail(u.email())
                .setCreateTime(timestamp(u.createTime())).build().toByteArray();
    }

    static UserView decodeUser(byte[] bytes) throws InvalidProtocolBufferException {
        User u = strict(User.parseFrom(bytes));
        return new UserView(u.getId(), u.getName(), u.getEmail(), instant(u.getCreateTime()));
    }

    // ---- helpers -----------------------------------------------------------------------------

    /**
     * Protobuf parses most byte strings into something; fields it does not know mean the bytes
     * were not written by this format version, so they are refused rather than half-read.
     */
    private static <M extends Message> M strict(M message) {
        if (!message.getUnknownFields().asMap().isEmpty()) {
            throw new IllegalArgumentException("unknown fields in " + message.getDescriptorForType().getName());
        }
        return message;
    }

    private static Timestamp timestamp(Instant instant) {
        return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
    }

    private static Instant instant(Timestamp t) {
        return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
    }
}
