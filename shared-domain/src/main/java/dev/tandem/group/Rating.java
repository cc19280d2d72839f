package dev.tandem.group;

import jakarta.persistence.Column;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import org.springframework.data.domain.Persistable;

import java.time.Instant;

@Entity
@Table(name = "ratings")
public class Rating implements Persistable<MemberKey> {

    @EmbeddedId
    private MemberKey key;

    @Column(nullable = false)
    private int stars;

    @Column(nullable = false, length = 500)
    private String comment;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    // Ratings are never updated: a second one by the same user must fail on the key, not merge.
    @Transient
    private boolean isNew;

    protected Rating() {
    }

    public Rating(long groupId, long userId, int stars, String comment, Instant createdAt) {
        this.key = new MemberKey(groupId, userId);
        this.stars = stars;
        this.comment = comment;
        this.createdAt = createdAt;
        this.isNew = true;
    }

    @Override
    public MemberKey getId() {
        return key;
    }

    @Override
    public boolean isNew() {
        return isNew;
    }

    public RatingView toView() {
        return new RatingView(key.getGroupId(), key.getUserId(), stars, comment, createdAt);
    }
}
