package dev.tandem.group;

import jakarta.persistence.Column;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import org.springframework.data.domain.Persistable;

import java.time.Instant;

@Entity
@Table(name = "group_members")
public class GroupMember implements Persistable<MemberKey> {

    @EmbeddedId
    private MemberKey key;

    @Column(name = "joined_at", nullable = false)
    private Instant joinedAt;

    // A membership is only ever inserted or deleted. Marking it new makes save() a plain INSERT,
    // so a duplicate is a key violation (a conflict) rather than a silent merge into the old row.
    @Transient
    private boolean isNew;

    protected GroupMember() {
    }

    public GroupMember(long groupId, long userId, Instant joinedAt) {
        this.key = new MemberKey(groupId, userId);
        this.joinedAt = joinedAt;
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

    public MembershipView toView() {
        return new MembershipView(key.getGroupId(), key.getUserId(), joinedAt);
    }
}
