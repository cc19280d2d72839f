package dev.tandem.cache;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupProto;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.User;
import dev.tandem.user.UserProto;
import dev.tandem.user.UserView;

/**
 * The read models as tandem.v1 bytes at the L2 boundary, through the one mapping the gRPC wire
 * uses too ({@link GroupProto}, {@link UserProto}): Redis holds the same bytes whichever service
 * wrote them.
 */
final class ProtoCodec {

    private ProtoCodec() {
    }

    static byte[] encodeGroup(GroupView g) {
        return GroupProto.group(g).toByteArray();
    }

    static GroupView decodeGroup(byte[] bytes) throws InvalidProtocolBufferException {
        return GroupProto.groupView(Group.parseFrom(bytes));
    }

    static byte[] encodePage(GroupPage page) {
        return GroupProto.page(page).toByteArray();
    }

    static GroupPage decodePage(byte[] bytes) throws InvalidProtocolBufferException {
        return GroupProto.pageView(ListGroupsResponse.parseFrom(bytes));
    }

    static byte[] encodeLeaderboard(LeaderboardView board) {
        return GroupProto.leaderboard(board).toByteArray();
    }

    static LeaderboardView decodeLeaderboard(byte[] bytes) throws InvalidProtocolBufferException {
        return GroupProto.leaderboardView(Leaderboard.parseFrom(bytes));
    }

    static byte[] encodeUser(UserView u) {
        return UserProto.user(u).toByteArray();
    }

    static UserView decodeUser(byte[] bytes) throws InvalidProtocolBufferException {
        return UserProto.userView(User.parseFrom(bytes));
    }
}
