package dev.tandem.rest;

import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.InitBinder;

import java.beans.PropertyEditorSupport;
import java.util.function.Function;

/**
 * Integer path variables and query parameters are decimal, as protobuf's JSON mapping writes them.
 * Spring's default number parsing also decodes hexadecimal ("0x10", "#10"), so /api/v1/groups/0x10
 * would be group 16; with these editors it is a 400 naming the parameter, like /api/v1/groups/ten.
 * Editors rather than converters: when a converter fails, Spring falls back to its default
 * editors, which accept hexadecimal again. An empty value stays "absent".
 */
@ControllerAdvice
public class DecimalParameters {

    @InitBinder
    void decimalIntegers(WebDataBinder binder) {
        binder.registerCustomEditor(long.class, new Decimal(Long::valueOf));
        binder.registerCustomEditor(Long.class, new Decimal(Long::valueOf));
        binder.registerCustomEditor(int.class, new Decimal(Integer::valueOf));
        binder.registerCustomEditor(Integer.class, new Decimal(Integer::valueOf));
    }

    private static final class Decimal extends PropertyEditorSupport {

        private final Function<String, Number> parse;

        Decimal(Function<String, Number> parse) {
            this.parse = parse;
        }

        @Override
        public void setAsText(String text) {
            // NumberFormatException is an IllegalArgumentException: Spring reports a type mismatch.
            setValue(text == null || text.isEmpty() ? null : parse.apply(text));
        }
    }
}
