package dev.tandem.rest.group;

import com.fasterxml.jackson.annotation.JsonAlias;

/** The JSON of tandem.v1.JoinGroupRequest; the group id comes from the path. */
public record JoinGroupRequest(@JsonAlias("user_id") Long userId) {
}
