package dev.tandem.group;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The editable fields of a group and their rules, checked in one place for CreateGroup and for
 * the result of an UpdateGroup.
 */
public record GroupFields(
        @NotBlank @Size(min = 3, max = 100) String name,
        @NotBlank @Size(max = 50)
        @Pattern(regexp = GroupFields.SUBJECT_REGEX, message = "must be lowercase letters, digits and single hyphens")
        String subject,
        @NotNull @Size(max = 1000) String description,
        @Min(2) @Max(500) int capacity) {

    /** What a subject must match, whole (REST documents it in its OpenAPI document too). */
    public static final String SUBJECT_REGEX = "[a-z0-9]+(-[a-z0-9]+)*";
}
