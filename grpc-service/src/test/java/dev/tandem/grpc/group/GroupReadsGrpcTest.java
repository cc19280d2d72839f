package dev.tandem.grpc.group;

import com.google.protobuf.Timestamp;
import dev.tandem.group.GroupService;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.group.SessionView;
import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.GetLeaderboardRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.GroupSummary;
import dev.tandem.proto.v1.Leaderboard;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.ListGroupsResponse;
import dev.tandem.proto.v1.StudySession;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GroupReadsGrpcTest extends GrpcIntegrationTest {

    @Autowired GroupService groups;

    // ---- GetGroup ------------------------------------------------------------------------------

    @Test
    void getGroupCarriesEveryFieldOfTheReadModel() {
        // Seeded group 1 has members, ratings and sessions, so no field is trivially zero.
        GroupView expected = groups.get(1);
        Group group = api().getGroup(GetGroupRequest.newBuilder().setId(1).build());

        assertThat(group.getId()).isEqualTo(1);
        assertThat(group.getName()).isEqualTo(expected.name());
        assertThat(group.getSubject()).isEqualTo(expected.subject());
        assertThat(group.getDescription()).isEqualTo(expected.description());
        assertThat(group.getCapacity()).isEqualTo(expected.capacity());
        assertThat(group.getOwnerId()).isEqualTo(expected.ownerId());
        assertThat(group.getOwnerName()).isEqualTo(expected.ownerName()).isNotEmpty();
        assertThat(group.getMemberCount()).isEqualTo(expected.memberCount()).isPositive();
        assertThat(group.getAverageRating()).isEqualTo(expected.averageRating());
        assertThat(group.getRatingCount()).isEqualTo(expected.ratingCount());
        assertThat(group.getVersion()).isEqualTo(expected.version());
        assertThat(instant(group.getCreateTime())).isEqualTo(expected.createTime());
        assertThat(group.getNextSessionsList()).hasSameSizeAs(expected.nextSessions());
        for (int i = 0; i < expected.nextSessions().size(); i++) {
            StudySession session = group.getNextSessions(i);
            SessionView view = expected.nextSessions().get(i);
            assertThat(session.getId()).isEqualTo(view.id());
            assertThat(session.getGroupId()).isEqualTo(1);
            assertThat(session.getTopic()).isEqualTo(view.topic());
            assertThat(instant(session.getStartTime())).isEqualTo(view.startTime());
            assertThat(session.getDurationMinutes()).isEqualTo(view.durationMinutes());
            assertThat(session.getLocation()).isEqualTo(view.location());
        }
    }

    @Test
    void seededGroupsHaveRatingsAndSessionsOnTheWire() {
        // Guards the test above against passing on empty data.
        long withSessions = 0;
        long withRatings = 0;
        for (long id = 1; id <= 50; id++) {
            Group group = api().getGroup(GetGroupRequest.newBuilder().setId(id).build());
            withSessions += group.getNextSessionsCount() > 0 ? 1 : 0;
            withRatings += group.getRatingCount() > 0 ? 1 : 0;
            assertThat(group.getNextSessionsCount()).isLessThanOrEqualTo(3);
        }
        assertThat(withSessions).isPositive();
        assertThat(withRatings).isPositive();
    }

    @ParameterizedTest
    @ValueSource(longs = {999_999, 0, -1, Long.MAX_VALUE, Long.MIN_VALUE})
    void unknownGroupIsNotFoundNamingTheGroup(long id) {
        GrpcFailure.of(() -> api().getGroup(GetGroupRequest.newBuilder().setId(id).build()))
                .assertCode(Status.Code.NOT_FOUND)
                .assertResource("group", String.valueOf(id));
    }

    // ---- ListGroups ----------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({"algorithms,1", "algorithms,7", "algorithms,1000", "'',1", "'',7", "'',1000"})
    void walkingThePagesReturnsEveryGroupOfTheSubjectOnceInIdOrder(String subject, int pageSize) {
        // 18 more algorithms groups on top of the seeded 5, so page size 7 spans several pages
        // and the subject's ids are interleaved with other subjects'.
        for (int i = 0; i < 18; i++) {
            api().createGroup(CreateGroupRequest.newBuilder().setName("Extra algorithms " + i)
                    .setSubject("algorithms").setCapacity(10).setOwnerId(1 + i).build());
        }
        List<Long> expected = subject.isEmpty()
                ? jdbc.sql("SELECT id FROM study_groups ORDER BY id").query(Long.class).list()
                : jdbc.sql("SELECT id FROM study_groups WHERE subject = ? ORDER BY id").param(subject)
                        .query(Long.class).list();

        List<Long> walked = new ArrayList<>();
        String token = "";
        int pages = 0;
        do {
            ListGroupsResponse page = api().listGroups(ListGroupsRequest.newBuilder()
                    .setSubject(subject).setPageSize(pageSize).setPageToken(token).build());
            assertThat(page.getGroupsCount()).isLessThanOrEqualTo(pageSize);
            for (GroupSummary group : page.getGroupsList()) {
                if (!subject.isEmpty()) {
                    assertThat(group.getSubject()).isEqualTo(subject);
                }
                walked.add(group.getId());
            }
            token = page.getNextPageToken();
            assertThat(++pages).as("pages walked").isLessThanOrEqualTo(expected.size() + 1);
        } while (!token.isEmpty());

        assertThat(expected).hasSize(subject.isEmpty() ? 68 : 23);
        assertThat(walked).containsExactlyElementsOf(expected);
    }

    @Test
    void listRowsCarryTheSummaryOfEachGroup() {
        ListGroupsResponse page = api().listGroups(ListGroupsRequest.newBuilder()
                .setSubject("biology").setPageSize(1000).build());
        assertThat(page.getGroupsList()).isNotEmpty();
        assertThat(page.getNextPageToken()).isEmpty();
        for (GroupSummary summary : page.getGroupsList()) {
            GroupView group = groups.get(summary.getId());
            assertThat(summary.getName()).isEqualTo(group.name());
            assertThat(summary.getSubject()).isEqualTo("biology");
            assertThat(summary.getCapacity()).isEqualTo(group.capacity());
            assertThat(summary.getMemberCount()).isEqualTo(group.memberCount());
            assertThat(summary.getAverageRating()).isEqualTo(group.averageRating());
        }
    }

    @Test
    void pageSizeZeroMeansTheDefaultOfTwenty() {
        ListGroupsResponse page = api().listGroups(ListGroupsRequest.getDefaultInstance());
        assertThat(page.getGroupsCount()).isEqualTo(GroupService.DEFAULT_PAGE_SIZE);
        assertThat(page.getNextPageToken()).isNotEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 1001, Integer.MIN_VALUE, Integer.MAX_VALUE})
    void pageSizeOutsideOneToThousandIsInvalid(int pageSize) {
        GrpcFailure.of(() -> api().listGroups(ListGroupsRequest.newBuilder().setPageSize(pageSize).build()))
                .assertInvalid("page_size");
    }

    @ParameterizedTest
    @ValueSource(strings = {"not a token", "!!!!", "AAAA", "%%%", "eyJhZnRlciI6MX0"})
    void malformedPageTokenIsInvalid(String token) {
        GrpcFailure.of(() -> api().listGroups(ListGroupsRequest.newBuilder().setPageToken(token).build()))
                .assertInvalid("page_token");
    }

    @Test
    void pageTokenOfAnotherSubjectIsInvalid() {
        String algorithmsToken = api().listGroups(ListGroupsRequest.newBuilder()
                .setSubject("algorithms").setPageSize(1).build()).getNextPageToken();
        assertThat(algorithmsToken).isNotEmpty();

        GrpcFailure.of(() -> api().listGroups(ListGroupsRequest.newBuilder()
                        .setSubject("biology").setPageSize(1).setPageToken(algorithmsToken).build()))
                .assertInvalid("page_token");
        GrpcFailure.of(() -> api().listGroups(ListGroupsRequest.newBuilder()
                        .setPageSize(1).setPageToken(algorithmsToken).build()))
                .assertInvalid("page_token");
    }

    @Test
    void subjectLongerThanFiftyIsInvalid() {
        GrpcFailure.of(() -> api().listGroups(ListGroupsRequest.newBuilder().setSubject("s".repeat(51)).build()))
                .assertInvalid("subject");
    }

    // ---- GetLeaderboard ------------------------------------------------------------------------

    @Test
    void leaderboardListsTheBestRatedGroupsBestFirst() {
        LeaderboardView expected = groups.leaderboard("", 0);
        Leaderboard board = api().getLeaderboard(GetLeaderboardRequest.getDefaultInstance());

        assertThat(board.getSubject()).isEmpty();
        assertThat(board.getGroupsCount()).isEqualTo(GroupService.DEFAULT_LEADERBOARD_LIMIT);
        assertThat(board.getGroupsList()).extracting(GroupSummary::getId)
                .containsExactlyElementsOf(expected.groups().stream().map(dev.tandem.group.GroupSummary::id).toList());
        assertThat(board.getGroupsList()).extracting(GroupSummary::getAverageRating)
                .isSortedAccordingTo((a, b) -> Double.compare(b, a));
        assertThat(board.getGroups(0).getAverageRating()).isEqualTo(expected.groups().getFirst().averageRating());
    }

    @Test
    void leaderboardOfOneSubjectHoldsOnlyThatSubject() {
        Leaderboard board = api().getLeaderboard(GetLeaderboardRequest.newBuilder()
                .setSubject("physics").setLimit(100).build());
        assertThat(board.getSubject()).isEqualTo("physics");
        assertThat(board.getGroupsList()).isNotEmpty().allSatisfy(g -> assertThat(g.getSubject()).isEqualTo("physics"));
    }

    @Test
    void leaderboardLimitIsHonoured() {
        assertThat(api().getLeaderboard(GetLeaderboardRequest.newBuilder().setLimit(1).build()).getGroupsCount())
                .isEqualTo(1);
        assertThat(api().getLeaderboard(GetLeaderboardRequest.newBuilder().setLimit(100).build()).getGroupsCount())
                .isEqualTo(groups.leaderboard("", 100).groups().size());
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 101, Integer.MAX_VALUE})
    void leaderboardLimitOutsideOneToHundredIsInvalid(int limit) {
        GrpcFailure.of(() -> api().getLeaderboard(GetLeaderboardRequest.newBuilder().setLimit(limit).build()))
                .assertInvalid("limit");
    }

    @Test
    void leaderboardSubjectLongerThanFiftyIsInvalid() {
        GrpcFailure.of(() -> api().getLeaderboard(GetLeaderboardRequest.newBuilder().setSubject("s".repeat(51)).build()))
                .assertInvalid("subject");
    }

    static Instant instant(Timestamp timestamp) {
        return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
    }
}
