package dev.tandem.group;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;

public record NewRating(
        long groupId,
        @Positive long userId,
        @Min(1) @Max(5) int stars,
        @Size(max = 500) String comment) {

    public NewRating {
        comment = comment == null ? "" : comment;
    }
}
