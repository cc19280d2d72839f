package dev.tandem.group;

import dev.tandem.error.NotBlankText;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import org.hibernate.validator.constraints.CodePointLength;

/**
 * The editable fields of a group and their rules, checked in one place for CreateGroup and for
 * the values an UpdateGroup's mask names. Each rule is one field's own (UpdateGroup relies on it: it
 * checks only the fields it changes). Lengths count characters (code points), as the utf8mb4 columns
 * do, not Java's UTF-16 units: a name of 100 emoji fits its VARCHAR(100), and {@code @Size}
 * counted it 200 and refused it.
 */
public record GroupFields(
        @NotBlankText @CodePointLength(min = 3, max = 100) String name,
        @NotBlankText @CodePointLength(max = 50)
        @Pattern(regexp = GroupFields.SUBJECT_REGEX, message = "must be lowercase letters, digits and single hyphens")
        String subject,
        @NotNull @CodePointLength(max = 1000) String description,
        @Min(2) @Max(500) int capacity) {

    /** What a subject must match, whole (REST documents it in its OpenAPI document too). */
    public static final String SUBJECT_REGEX = "[a-z0-9]+(-[a-z0-9]+)*";
}
