package dev.tandem.system;

import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.GetUserRequest;
import dev.tandem.proto.v1.User;
import dev.tandem.system.WireScenarios.Given;
import dev.tandem.system.WireScenarios.Scenario;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.tandem.system.WireScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of {@link WireScenarios} about users: CreateUser and GetUser.
 */
final class UserScenarios {

    private UserScenarios() {
    }

    static Stream<Scenario> rows() {
        return users();
    }

    static Stream<Scenario> users() {
        List<Scenario> rows = new ArrayList<>();
        rows.add(ok("CreateUser: the user reads back the same", NOTHING,
                (w, g) -> w.createUser(CreateUserRequest.newBuilder().setName("Ada Lovelace").setEmail(Given.uniqueEmail()).build()),
                (User created, Wire w, Given g) -> {
                    assertThat(created.getId()).isPositive();
                    assertThat(created.getName()).isEqualTo("Ada Lovelace");
                    assertThat(created.getEmail()).startsWith("scenario-").endsWith("@example.test");
                    assertThat(created.hasCreateTime()).isTrue();
                    assertThat(w.getUser(GetUserRequest.newBuilder().setId(created.getId()).build())).isEqualTo(created);
                    assertThat(g.database.value("SELECT email FROM users WHERE id = ?", created.getId()))
                            .isEqualTo(created.getEmail());
                }));
        rows.add(ok("CreateUser: a name outside Latin-1 round-trips", NOTHING,
                (w, g) -> w.createUser(CreateUserRequest.newBuilder().setName("Zoë 李 \uD83D\uDE80").setEmail(Given.uniqueEmail()).build()),
                (User created, Wire w, Given g) -> assertThat(w.getUser(GetUserRequest.newBuilder().setId(created.getId()).build())
                        .getName()).isEqualTo("Zoë 李 \uD83D\uDE80")));
        rows.add(fails("CreateUser: a taken e-mail is ALREADY_EXISTS", NOTHING,
                (w, g) -> w.createUser(CreateUserRequest.newBuilder().setName("Copy").setEmail("user5@example.test").build()),
                "ALREADY_EXISTS", "user", named("user5@example.test")));
        rows.add(fails("CreateUser: an e-mail differing only in letter case is the same address", NOTHING,
                (w, g) -> w.createUser(CreateUserRequest.newBuilder().setName("Copy").setEmail("USER5@Example.TEST").build()),
                "ALREADY_EXISTS", "user", named("USER5@Example.TEST")));
        rows.add(ok("CreateUser: an e-mail differing from a taken one by an accent is another address", NOTHING,
                (w, g) -> {
                    String taken = Given.uniqueEmail();
                    w.createUser(CreateUserRequest.newBuilder().setName("Jose").setEmail(taken).build());
                    return w.createUser(CreateUserRequest.newBuilder().setName("José")
                            .setEmail(taken.replace("scenario", "scénario")).build());
                },
                (User created, Wire w, Given g) -> assertThat(g.database.value("SELECT email FROM users WHERE id = ?", created.getId()))
                        .startsWith("scénario-")));
        Stream.of(
                invalidUser("", "ok@example.test", "name"),
                invalidUser("   ", "ok@example.test", "name"),
                invalidUser("\u00A0\u2007\u202F", "ok@example.test", "name"),
                invalidUser("n".repeat(101), "ok@example.test", "name"),
                invalidUser("Someone", "", "email"),
                invalidUser("Someone", "not-an-email", "email"),
                invalidUser("Someone", "two@@example.test", "email"),
                invalidUser("Someone", "e".repeat(250) + "@x.test", "email"),
                invalidUser("n".repeat(101), "e".repeat(250) + "@x.test", "name", "email"),
                invalidUser("", "", "name", "email")).forEach(rows::add);
        rows.add(ok("GetUser: a seeded user reads as stored", NOTHING,
                (w, g) -> w.getUser(GetUserRequest.newBuilder().setId(1).build()),
                (User user, Wire w, Given g) -> {
                    assertThat(user.getId()).isEqualTo(1);
                    assertThat(user.getEmail()).isEqualTo("user1@example.test");
                    assertThat(user.getName()).isEqualTo(g.database.value("SELECT name FROM users WHERE id = 1"));
                    assertThat(user.getCreateTime()).isEqualTo(timestamp(Instant.parse("2026-01-01T00:01:00Z")));
                }));
        rows.add(notFound("GetUser: an unknown user is NOT_FOUND", NOTHING,
                (w, g) -> w.getUser(GetUserRequest.newBuilder().setId(UNKNOWN).build()), "user", named(UNKNOWN)));
        return rows.stream();
    }

    private static Scenario invalidUser(String name, String email, String... fields) {
        CreateUserRequest request = CreateUserRequest.newBuilder().setName(name).setEmail(email).build();
        return invalid("CreateUser: invalid " + String.join(" and ", fields) + " " + abbreviate(request), NOTHING,
                (w, g) -> w.createUser(request), fields);
    }
}
