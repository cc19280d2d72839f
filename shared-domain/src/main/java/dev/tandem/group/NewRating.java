package dev.tandem.group;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Positive;
import org.hibernate.validator.constraints.CodePointLength;

public record NewRating(
        long groupId,
        @Positive long userId,
        @Min(1) @Max(5) int stars,
        @CodePointLength(max = 500) String comment) {

    public NewRating {
        comment = comment == null ? "" : comment;
    }
}
