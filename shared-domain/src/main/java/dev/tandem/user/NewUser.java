package dev.tandem.user;

import dev.tandem.error.NotBlankText;
import jakarta.validation.constraints.Email;
import org.hibernate.validator.constraints.CodePointLength;

public record NewUser(
        @NotBlankText @CodePointLength(max = 100) String name,
        @NotBlankText @Email @CodePointLength(max = 254) String email) {
}
