package dev.tandem.user;

import java.time.Instant;

/** The read model of a user; field names match the proto's JSON names. */
public record UserView(long id, String name, String email, Instant createTime) {
}
