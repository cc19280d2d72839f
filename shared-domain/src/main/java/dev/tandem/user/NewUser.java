package dev.tandem.user;

import jakarta.validation.constraints.Email;
import jakarta.validation.constraints.NotBlank;
import org.hibernate.validator.constraints.CodePointLength;

public record NewUser(
        @NotBlank @CodePointLength(max = 100) String name,
        @NotBlank @Email @CodePointLength(max = 254) String email) {
}
