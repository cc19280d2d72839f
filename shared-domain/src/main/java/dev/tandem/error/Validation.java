package dev.tandem.error;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import org.springframework.stereotype.Component;

import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Runs Jakarta Bean Validation on a command and turns violations into one INVALID_ARGUMENT whose
 * field names are the proto field paths (snake_case), so both wires report the same fields.
 */
@Component
public class Validation {

    private final Validator validator;

    public Validation(Validator validator) {
        this.validator = validator;
    }

    public void check(Object command) {
        check(command, "");
    }

    /** Validates {@code command}, naming each field {@code prefix + field} (e.g. "group."). */
    public void check(Object command, String prefix) {
        throwIfAny(violations(command, prefix));
    }

    public List<FieldViolation> violations(Object command, String prefix) {
        Set<ConstraintViolation<Object>> found = validator.validate(command);
        return found.stream()
                .map(v -> new FieldViolation(prefix + FieldViolation.protoPath(v.getPropertyPath().toString()), v.getMessage()))
                .toList();
    }

    /** One INVALID_ARGUMENT naming every violation, in a stable order; nothing when the list is empty. */
    public static void throwIfAny(List<FieldViolation> violations) {
        if (!violations.isEmpty()) {
            throw DomainException.invalid(violations.stream()
                    .sorted(Comparator.comparing(FieldViolation::field).thenComparing(FieldViolation::description))
                    .toList());
        }
    }
}
