package dev.tandem.user;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

public interface UserRepository extends JpaRepository<User, Long> {

    /**
     * How many users have this address in any letter case: compared as the unique key compares it
     * (users.email_key, the address lowered by the database, byte for byte), not under the column's
     * collation, which ignores accents too.
     */
    @Query(value = "SELECT COUNT(*) FROM users WHERE email_key = LOWER(:email)", nativeQuery = true)
    long countByEmailInAnyCase(@Param("email") String email);
}
