package dev.tandem.user;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.error.FieldViolation;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@SpringBootTest
@UseTestDatabase
class UserServiceTest {

    @Autowired UserService users;
    @Autowired SeedData seed;

    @BeforeEach
    void freshData() {
        seed.reset(1);
    }

    @Test
    void createdUserReadsBackExactly() {
        UserView created = users.create(new NewUser("Ada", "ada@example.test"));
        assertThat(users.get(created.id())).isEqualTo(created);
        assertThat(created.id()).isEqualTo(101);
    }

    @Test
    void duplicateEmailIsAlreadyExists() {
        users.create(new NewUser("Ada", "ada@example.test"));
        assertThatThrownBy(() -> users.create(new NewUser("Other Ada", "ada@example.test")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
    }

    @Test
    void invalidUserNamesItsFields() {
        assertThatThrownBy(() -> users.create(new NewUser(" ", "not-an-email")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .extracting(FieldViolation::field).containsExactly("email", "name"));
        assertThatThrownBy(() -> users.get(12345))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }
}
