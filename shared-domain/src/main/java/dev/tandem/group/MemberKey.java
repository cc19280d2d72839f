package dev.tandem.group;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

import java.io.Serializable;
import java.util.Objects;

/** Key of a membership and of a rating: one per group and user. */
@Embeddable
public class MemberKey implements Serializable {

    @Column(name = "group_id", nullable = false)
    private long groupId;

    @Column(name = "user_id", nullable = false)
    private long userId;

    protected MemberKey() {
    }

    public MemberKey(long groupId, long userId) {
        this.groupId = groupId;
        this.userId = userId;
    }

    public long getGroupId() {
        return groupId;
    }

    public long getUserId() {
        return userId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemberKey other && other.groupId == groupId && other.userId == userId;
    }

    @Override
    public int hashCode() {
        return Objects.hash(groupId, userId);
    }
}
