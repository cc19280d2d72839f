package dev.tandem.group;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

public interface GroupMemberRepository extends JpaRepository<GroupMember, MemberKey> {

    @Query("select count(m) from GroupMember m where m.key.groupId = :groupId")
    long countByGroupId(long groupId);
}
