package dev.tandem.error;

import jakarta.validation.ValidatorFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@link NotBlankText} counts as blank; the wires' scenario tables show it refused on both. */
class NotBlankTextTest {

    record Named(@NotBlankText String name) {
    }

    private static ValidatorFactory factory;

    @BeforeAll
    static void startValidator() {
        factory = jakarta.validation.Validation.buildDefaultValidatorFactory();
    }

    @AfterAll
    static void closeValidator() {
        factory.close();
    }

    private static boolean valid(String name) {
        return factory.getValidator().validate(new Named(name)).isEmpty();
    }

    @ParameterizedTest(name = "blank: {0}")
    @ValueSource(strings = {"", "   ", "\t\n\r", "\u00A0\u00A0\u00A0", "\u2007\u202F\u3000", "\u200B\u200B\u200B",
            "\u200D\uFEFF\u2060", "\u2028\u2029", "\u0000\u0001\u007F", " \u00A0\u200B\u3000 ", "\u3164\u3164\u3164", "\u115F\u1160\uFFA0", "\u2800\u2800\u2800",
            // default-ignorable marks: variation selectors, the combining grapheme joiner, Khmer's
            // inherent vowels, Mongolian's variation selectors, the supplementary variation selectors
            "\uFE0F\uFE0F\uFE0F", "\u034F\u034F\u034F", "\u17B4\u17B5", "\u180B\u180C\u180F", "\uDB40\uDD00\uDB40\uDDEF"})
    void whiteSpaceAndInvisibleCharactersAreBlank(String name) {
        assertThat(valid(name)).isFalse();
    }

    @ParameterizedTest(name = "not blank: {0}")
    @ValueSource(strings = {"a", "\u00A0Zoë\u00A0", "李", "\uD83D\uDE80", "\u200Bx", "-", "0", "\u2764\uFE0F", "e\u0301"})
    void anyVisibleCharacterIsEnough(String name) {
        assertThat(valid(name)).isTrue();
    }

    @Test
    void nullIsBlank() {
        assertThat(valid(null)).isFalse();
    }
}
