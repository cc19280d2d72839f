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
    // Lowered under the column's collation, as the generated key is made (the connection's may map
    // some letters otherwise), then compared byte for byte: an explicit collation would otherwise
    // decide the comparison too, and utf8mb4_unicode_ci's ignores accents.
    @Query(value = "SELECT COUNT(*) FROM users WHERE email_key = "
            + "LOWER(CONVERT(:email USING utf8mb4) COLLATE utf8mb4_unicode_ci) COLLATE utf8mb4_bin", nativeQuery = true)
    long countByEmailInAnyCase(@Param("email") String email);
}
