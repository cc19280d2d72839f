package dev.tandem.group;

import dev.tandem.error.NotBlankText;
import jakarta.validation.constraints.Future;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.hibernate.validator.constraints.CodePointLength;

import java.time.Instant;

public record NewSession(
        long groupId,
        @NotBlankText @CodePointLength(max = 200) String topic,
        @NotNull @Future Instant startTime,
        @Min(15) @Max(480) int durationMinutes,
        @CodePointLength(max = 200) String location) {

    public NewSession {
        location = location == null ? "" : location;
    }
}
