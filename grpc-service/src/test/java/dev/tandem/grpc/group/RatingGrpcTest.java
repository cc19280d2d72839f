package dev.tandem.grpc.group;

import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.RateGroupRequest;
import dev.tandem.proto.v1.Rating;
import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** RateGroup over the wire. */
class RatingGrpcTest extends GrpcIntegrationTest {

    private long group;

    @BeforeEach
    void unratedGroup() {
        group = api().createGroup(CreateGroupRequest.newBuilder().setName("Rating test").setSubject("history")
                .setCapacity(10).setOwnerId(1).build()).getId();
    }

    @Test
    void ratingIsStoredAndCountsInTheGroupsAverage() {
        Rating rating = api().rateGroup(rate(42, 4).setComment("Well run").build());
        api().rateGroup(rate(43, 5).build());

        assertThat(rating.getGroupId()).isEqualTo(group);
        assertThat(rating.getUserId()).isEqualTo(42);
        assertThat(rating.getStars()).isEqualTo(4);
        assertThat(rating.getComment()).isEqualTo("Well run");
        assertThat(rating.hasCreateTime()).isTrue();
        var read = api().getGroup(GetGroupRequest.newBuilder().setId(group).build());
        assertThat(read.getRatingCount()).isEqualTo(2);
        assertThat(read.getAverageRating()).isEqualTo(4.5);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5})
    void starBoundsAreAccepted(int stars) {
        assertThat(api().rateGroup(rate(42, stars).build()).getStars()).isEqualTo(stars);
    }

    @Test
    void aSecondRatingBySameUserIsAlreadyExistsAndKeepsTheFirst() {
        api().rateGroup(rate(42, 2).build());

        GrpcFailure.of(() -> api().rateGroup(rate(42, 5).build()))
                .assertCode(Status.Code.ALREADY_EXISTS)
                .assertResource("rating", group + "/42");
        assertThat(count("ratings WHERE group_id = " + group)).isEqualTo(1);
        assertThat(jdbc.sql("SELECT stars FROM ratings WHERE group_id = ? AND user_id = 42").param(group)
                .query(Integer.class).single()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 6, -1, 100})
    void starsOutsideOneToFiveAreInvalidAndNothingIsWritten(int stars) {
        long before = count("ratings");
        GrpcFailure.of(() -> api().rateGroup(rate(42, stars).build())).assertInvalid("stars");
        assertThat(count("ratings")).isEqualTo(before);
    }

    @Test
    void commentLongerThanFiveHundredIsInvalid() {
        GrpcFailure.of(() -> api().rateGroup(rate(42, 3).setComment("c".repeat(501)).build())).assertInvalid("comment");
        assertThat(count("ratings WHERE group_id = " + group)).isZero();
    }

    @Test
    void userIdMustBePositive() {
        GrpcFailure.of(() -> api().rateGroup(rate(0, 3).build())).assertInvalid("user_id");
    }

    @Test
    void ratingAnUnknownGroupOrAsAnUnknownUserIsNotFound() {
        GrpcFailure.of(() -> api().rateGroup(rate(42, 3).setGroupId(999_999).build()))
                .assertCode(Status.Code.NOT_FOUND).assertResource("group", "999999");
        GrpcFailure.of(() -> api().rateGroup(rate(999_999, 3).build()))
                .assertCode(Status.Code.NOT_FOUND).assertResource("user", "999999");
        assertThat(count("ratings WHERE group_id = " + group)).isZero();
    }

    private RateGroupRequest.Builder rate(long user, int stars) {
        return RateGroupRequest.newBuilder().setGroupId(group).setUserId(user).setStars(stars);
    }
}
