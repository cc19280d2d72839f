package dev.tandem.rest.group;

import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupProto;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.group.MembershipView;
import dev.tandem.group.RatingView;
import dev.tandem.group.SessionView;
import dev.tandem.rest.representation.Representations;
import dev.tandem.rest.representation.Representations.EntityTag;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The group operations' representations: the messages the gRPC wire sends and receives, and the
 * entity tags of the reads: GetGroup's strong, ListGroups' and GetLeaderboard's weak (a page and a
 * ranking are listings, not entities).
 */
@Configuration(proxyBeanMethods = false)
class GroupRepresentations {

    @Bean
    Representations groupMessages() {
        return new Representations()
                .response(GroupView.class, GroupProto::group, EntityTag.STRONG)
                .response(GroupPage.class, GroupProto::page, EntityTag.WEAK)
                .response(MembershipView.class, GroupProto::membership)
                .response(RatingView.class, GroupProto::rating)
                .response(SessionView.class, GroupProto::session)
                .response(LeaderboardView.class, GroupProto::leaderboard, EntityTag.WEAK)
                .request(CreateGroupRequest.class, dev.tandem.proto.v1.CreateGroupRequest.getDefaultInstance())
                .request(UpdateGroupRequest.class, dev.tandem.proto.v1.UpdateGroupRequest.getDefaultInstance())
                .request(JoinGroupRequest.class, dev.tandem.proto.v1.JoinGroupRequest.getDefaultInstance())
                .request(RateGroupRequest.class, dev.tandem.proto.v1.RateGroupRequest.getDefaultInstance())
                .request(ScheduleSessionRequest.class, dev.tandem.proto.v1.ScheduleSessionRequest.getDefaultInstance());
    }
}
