package dev.tandem.rest;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.type.LogicalType;

/**
 * Request JSON is read as strictly as protobuf's wire reads bytes: a string field takes a JSON
 * string and nothing else, and that string must be Unicode text. The size and depth limits and the
 * duplicate-key check are spring.jackson properties (application.yml); these two need code.
 *
 * <ul>
 *   <li>Jackson would turn {@code "name": 123} or {@code "name": true} into the text "123" or
 *   "true" and create a group of that name; a number or boolean where a string belongs is a wrong
 *   JSON type, 400 naming the field. (Strings holding numbers stay accepted for integer fields:
 *   that is protobuf's JSON mapping for int64.)</li>
 *   <li>The escape {@code "\ud800"} is valid JSON but an unpaired surrogate, which UTF-8 cannot
 *   encode: MariaDB would silently store "?" in its place. The gRPC wire cannot carry one at all
 *   (protobuf refuses such bytes), so it is refused here, at the JSON edge.</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class StrictJson {

    @Bean
    JsonMapperBuilderCustomizer stringsAreStringsOfUnicodeText() {
        return builder -> builder
                .withCoercionConfig(LogicalType.Textual, text -> text
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                .addModule(new SimpleModule("tandem-unicode-strings")
                        .addDeserializer(String.class, new UnicodeStringDeserializer()));
    }

    /** Jackson's own String deserializer, then a check that the text is well-formed UTF-16. */
    public static final class UnicodeStringDeserializer extends StringDeserializer {

        public static final String NOT_UNICODE = "is not Unicode text (it holds an unpaired surrogate)";

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            String value = super.deserialize(p, ctxt);
            if (value != null && !wellFormed(value)) {
                return (String) ctxt.handleWeirdStringValue(String.class, value, NOT_UNICODE);
            }
            return value;
        }

        static boolean wellFormed(String value) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (Character.isHighSurrogate(c)) {
                    if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
                        return false;
                    }
                    i++;
                } else if (Character.isLowSurrogate(c)) {
                    return false;
                }
            }
            return true;
        }
    }
}
