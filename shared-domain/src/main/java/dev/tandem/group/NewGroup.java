package dev.tandem.group;

import jakarta.validation.constraints.Positive;

/** CreateGroup's input. {@code fields} are validated without a prefix: they are top-level on the wire. */
public record NewGroup(String name, String subject, String description, int capacity, @Positive long ownerId) {

    GroupFields fields() {
        return new GroupFields(name, subject, description == null ? "" : description, capacity);
    }
}
