package dev.tandem.group;

import jakarta.persistence.LockModeType;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Lock;
import org.springframework.data.jpa.repository.Query;

import java.util.Optional;

public interface StudyGroupRepository extends JpaRepository<StudyGroup, Long> {

    /**
     * Reads the group with its row locked (SELECT ... FOR UPDATE) until the transaction ends.
     * Joins and capacity changes take this lock so that "count the members, then insert" cannot
     * interleave with another join and overfill the group.
     */
    @Lock(LockModeType.PESSIMISTIC_WRITE)
    @Query("select g from StudyGroup g where g.id = :id")
    Optional<StudyGroup> findLockedById(long id);
}
