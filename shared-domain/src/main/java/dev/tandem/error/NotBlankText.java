package dev.tandem.error;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Set;

/**
 * Jakarta's {@code @NotBlank}, with blank meaning what a reader sees: not null, and at least one
 * character that is neither white space nor invisible.
 *
 * <p>Why not {@code @NotBlank} itself: Hibernate Validator's trims only what {@link String#trim()}
 * does, the characters up to U+0020, so a name of three no-break spaces (U+00A0), ideographic spaces
 * (U+3000) or zero-width spaces (U+200B) passed it and was stored, a group or user nobody could see
 * the name of. Blank here is every Unicode space separator and white-space character (NBSP
 * included), control characters, format characters (zero-width space and joiners, the byte
 * order mark), the few letters that draw nothing (the Hangul fillers, the blank Braille cell), and
 * the marks Unicode makes default-ignorable (variation selectors, the combining grapheme joiner:
 * renderers draw nothing for them, so three of them were a name nobody could see).
 */
@Documented
@Constraint(validatedBy = NotBlankText.Validator.class)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface NotBlankText {

    String message() default "must not be blank";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** What the annotation checks, on any CharSequence. */
    final class Validator implements ConstraintValidator<NotBlankText, CharSequence> {

        @Override
        public boolean isValid(CharSequence value, ConstraintValidatorContext context) {
            return value != null && value.codePoints().anyMatch(codePoint -> !blank(codePoint));
        }

        /** Letters by their category, though they draw nothing: the Hangul fillers and the blank Braille cell. */
        private static final Set<Integer> BLANK_LETTERS = Set.of(0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800);

        /**
         * The marks (category Mn) among Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties
         * .txt), as {first, last} ranges: the rest of that property is format characters or letters
         * this class already counts, or unassigned.
         */
        private static final int[][] IGNORABLE_MARKS = {
                {0x034F, 0x034F},   // combining grapheme joiner
                {0x17B4, 0x17B5},   // Khmer inherent vowels
                {0x180B, 0x180D},   // Mongolian free variation selectors (180E is a format character)
                {0x180F, 0x180F},
                {0xFE00, 0xFE0F},   // variation selectors
                {0xE0100, 0xE01EF}, // variation selectors supplement
        };

        static boolean blank(int codePoint) {
            if (Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint) || BLANK_LETTERS.contains(codePoint)) {
                return true;
            }
            int type = Character.getType(codePoint);
            if (type == Character.CONTROL || type == Character.FORMAT) {
                return true;
            }
            for (int[] range : IGNORABLE_MARKS) {
                if (codePoint >= range[0] && codePoint <= range[1]) {
                    return true;
                }
            }
            return false;
        }
    }
}
