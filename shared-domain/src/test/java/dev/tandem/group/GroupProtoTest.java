package dev.tandem.group;

import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsResponse;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one mapping of the group read models to tandem.v1: exact both ways, and the bytes L2 holds
 * (pinned below as they were written before the mapping was shared with the gRPC wire: other
 * builds and the other service read them).
 */
class GroupProtoTest {

    private static final Instant CREATED = Instant.parse("2024-03-01T10:15:30Z");
    private static final GroupSummary SUMMARY = new GroupSummary(7, "Graphs", "algorithms", 12, 3, 4.5);
    private static final GroupView GROUP = new GroupView(7, "Graphs", "algorithms", "Weekly", 12, 4, "Ana", 3, 4.5, 2,
            List.of(new SessionView(9, 7, "BFS", Instant.parse("2024-03-08T18:00:00Z"), 90, "Room 1")), 5, CREATED);

    @Test
    void theBytesAreTheOnesL2HasAlwaysHeld() {
        assertThat(hex(GroupProto.group(GROUP).toByteArray())).isEqualTo("080712064772617068731a0a616c676f726974686d73"
                + "22065765656b6c79280c30043a03416e61400349000000000000124050025a1b080910071a03424653220608a0a4adaf06285a"
                + "3206526f6f6d203160056a0608c2d586af06");
        assertThat(hex(GroupProto.page(new GroupPage(List.of(SUMMARY), "tok")).toByteArray())).isEqualTo(
                "0a23080712064772617068731a0a616c676f726974686d73200c28033100000000000012401203746f6b");
        assertThat(hex(GroupProto.leaderboard(new LeaderboardView("algorithms", List.of(SUMMARY))).toByteArray()))
                .isEqualTo("0a0a616c676f726974686d731223080712064772617068731a0a616c676f726974686d73200c280331000000"
                        + "0000001240");
    }

    @Test
    void viewsSurviveTheRoundTrip() throws Exception {
        Instant micros = Instant.parse("2024-03-01T10:15:30.123456Z");
        GroupView group = new GroupView(1, "", "", "", 0, 0, "", 0, 0, 0,
                List.of(new SessionView(2, 1, "Tópico ✓", micros, 30, ""), new SessionView(3, 1, "", Instant.EPOCH, 0, "")),
                0, micros);
        for (GroupView view : List.of(GROUP, group)) {
            assertThat(GroupProto.groupView(Group.parseFrom(GroupProto.group(view).toByteArray()))).isEqualTo(view);
        }
        for (List<GroupSummary> rows : List.of(List.<GroupSummary>of(), List.of(SUMMARY, new GroupSummary(0, "", "", 0, 0, 0)))) {
            GroupPage page = new GroupPage(rows, rows.isEmpty() ? "" : "next");
            assertThat(GroupProto.pageView(ListGroupsResponse.parseFrom(GroupProto.page(page).toByteArray()))).isEqualTo(page);
            LeaderboardView board = new LeaderboardView(rows.isEmpty() ? "" : "algorithms", rows);
            assertThat(GroupProto.leaderboardView(Leaderboard.parseFrom(GroupProto.leaderboard(board).toByteArray())))
                    .isEqualTo(board);
        }
    }

    @Test
    void fieldsThisBuildDoesNotKnowAreRefused() throws Exception {
        byte[] unknownField = {(byte) 0xA8, 0x1F, 0x01};
        assertThatThrownBy(() -> GroupProto.groupView(Group.parseFrom(unknownField)))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] summaryWithUnknownField = {0x0A, 0x03, (byte) 0xA8, 0x1F, 0x01};
        assertThatThrownBy(() -> GroupProto.pageView(ListGroupsResponse.parseFrom(summaryWithUnknownField)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
