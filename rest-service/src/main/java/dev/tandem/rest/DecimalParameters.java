package dev.tandem.rest;

import org.springframework.beans.PropertyEditorRegistry;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.format.support.FormattingConversionService;
import org.springframework.validation.Validator;
import org.springframework.web.bind.support.ConfigurableWebBindingInitializer;

import java.beans.PropertyEditorSupport;
import java.util.function.Function;

/**
 * Integer path variables and query parameters are decimal, as protobuf's JSON mapping writes them.
 * Spring's default number parsing also decodes hexadecimal ("0x10", "#10"), so /api/v1/groups/0x10
 * would be group 16; with these editors it is a 400 naming the parameter, like /api/v1/groups/ten.
 * Editors rather than converters: when a converter fails, Spring falls back to its default
 * editors, which accept hexadecimal again. An empty value stays "absent".
 *
 * <p>Why a binding initializer and not an {@code @InitBinder} method: Spring makes a data binder
 * for every path variable and query parameter it converts, and invokes each {@code @InitBinder}
 * method on it reflectively, resolving that method's own arguments first: on a warm
 * {@code GET /api/v1/groups/{id}}, about 1 µs of the request's 33 (README, "The hot path against
 * the framework's floor"). The initializer registers the same editors with a plain call. Boot
 * uses a {@link ConfigurableWebBindingInitializer} bean in place of its own, so this one carries
 * what Boot's would: the MVC conversion service and validator.
 */
@Configuration(proxyBeanMethods = false)
// Only with Spring MVC: the seeding run (scripts/seed.sh) starts this jar without a web server, and
// then there is no MVC conversion service or validator to hand on.
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class DecimalParameters {

    @Bean
    ConfigurableWebBindingInitializer decimalParametersBindingInitializer(
            @Qualifier("mvcConversionService") FormattingConversionService conversionService,
            @Qualifier("mvcValidator") Validator validator) {
        ConfigurableWebBindingInitializer initializer = new ConfigurableWebBindingInitializer();
        initializer.setConversionService(conversionService);
        initializer.setValidator(validator);
        initializer.setPropertyEditorRegistrar(DecimalParameters::registerDecimalEditors);
        return initializer;
    }

    /** Editors hold the value they parse, so every binder gets its own. */
    static void registerDecimalEditors(PropertyEditorRegistry binder) {
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
