package dev.tandem.grpc.user;

import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.User;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** CreateUser and GetUser over the wire. */
class UserGrpcTest extends GrpcIntegrationTest {

    @Test
    void createdUserReadsBackTheSame() {
        User created = api().createUser(CreateUserRequest.newBuilder().setName("Ada Lovelace")
                .setEmail("ada@example.test").build());

        assertThat(created.getId()).isPositive();
        assertThat(created.getName()).isEqualTo("Ada Lovelace");
        assertThat(created.getEmail()).isEqualTo("ada@example.test");
        assertThat(created.hasCreateTime()).isTrue();
        assertThat(api().getUser(GetUserRequest.newBuilder().setId(created.getId()).build())).isEqualTo(created);
    }

    @Test
    void seededUserIsReadAsStored() {
        User user = api().getUser(GetUserRequest.newBuilder().setId(5).build());
        assertThat(user.getEmail()).isEqualTo("user5@example.test");
        assertThat(user.getName()).isEqualTo(jdbc.sql("SELECT name FROM users WHERE id = 5").query(String.class).single());
    }

    @Test
    void unknownUserIsNotFound() {
        GrpcFailure.of(() -> api().getUser(GetUserRequest.newBuilder().setId(999_999).build()))
                .assertCode(Status.Code.NOT_FOUND).assertResource("user", "999999");
    }

    @Test
    void duplicateEmailIsAlreadyExistsAndAddsNoUser() {
        long before = count("users");
        GrpcFailure.of(() -> api().createUser(CreateUserRequest.newBuilder().setName("Copy")
                        .setEmail("user5@example.test").build()))
                .assertCode(Status.Code.ALREADY_EXISTS)
                .assertResource("user", "user5@example.test");
        assertThat(count("users")).isEqualTo(before);
    }

    @Test
    void emailDifferingOnlyInLetterCaseIsTheSameAddress() {
        long before = count("users");
        GrpcFailure.of(() -> api().createUser(CreateUserRequest.newBuilder().setName("Copy")
                        .setEmail("USER5@Example.TEST").build()))
                .assertCode(Status.Code.ALREADY_EXISTS);
        assertThat(count("users")).isEqualTo(before);
    }

    @Test
    void namesOutsideLatinOneRoundTrip() {
        User created = api().createUser(CreateUserRequest.newBuilder().setName("Zoë 李 \uD83D\uDE80")
                .setEmail("zoe@example.test").build());
        assertThat(api().getUser(GetUserRequest.newBuilder().setId(created.getId()).build()).getName())
                .isEqualTo("Zoë 李 \uD83D\uDE80");
    }

    @ParameterizedTest
    @CsvSource({
            "'',ok@example.test,name",
            "'   ',ok@example.test,name",
            "Someone,'',email",
            "Someone,not-an-email,email",
            "Someone,two@@example.test,email"})
    void invalidFieldIsNamedAndNoUserIsAdded(String name, String email, String field) {
        long before = count("users");
        GrpcFailure.of(() -> api().createUser(CreateUserRequest.newBuilder().setName(name).setEmail(email).build()))
                .assertInvalid(field);
        assertThat(count("users")).isEqualTo(before);
    }

    @Test
    void overlongNameAndEmailAreBothNamed() {
        GrpcFailure.of(() -> api().createUser(CreateUserRequest.newBuilder().setName("n".repeat(101))
                        .setEmail("e".repeat(250) + "@x.test").build()))
                .assertInvalid("name", "email");
    }
}
