package dev.tandem.rest;

import dev.tandem.error.FieldViolation;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.sym.PropertyNameMatcher;
import tools.jackson.core.util.JsonParserDelegate;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.type.LogicalType;

import java.util.HashSet;
import java.util.Set;

/**
 * Request JSON is read as strictly as protobuf's wire reads bytes: a string field takes a JSON
 * string and nothing else, and that string must be Unicode text; an integer written as a string is
 * ASCII digits; a field is given once. The size and depth limits and the duplicate-key check are
 * spring.jackson properties (application.yml); these need code.
 *
 * <ul>
 *   <li>Jackson would turn {@code "name": 123} or {@code "name": true} into the text "123" or
 *   "true" and create a group of that name; a number or boolean where a string belongs is a wrong
 *   JSON type, 400 naming the field. (Strings holding numbers stay accepted for integer fields:
 *   that is protobuf's JSON mapping for int64.)</li>
 *   <li>The escape {@code "\ud800"} is valid JSON but an unpaired surrogate, which UTF-8 cannot
 *   encode: MariaDB would silently store "?" in its place. The gRPC wire cannot carry one at all
 *   (protobuf refuses such bytes), so it is refused here, at the JSON edge.</li>
 *   <li>An integer in a string is read by Java's parsers, which take any script's digits, after
 *   Jackson trimmed it: {@code "capacity": "١٠"}, {@code "１０"} and {@code " 10 "} were all 10. It
 *   must be ASCII without spaces around it, as path and query integers are ({@link DecimalParameters});
 *   else 400 naming the field, as for {@code "ten"}.</li>
 *   <li>A field may be sent under its JSON name or its proto name ({@code ownerId}, {@code owner_id}:
 *   the records' {@code @JsonAlias}), and Jackson let the last of the two win, where protobuf's JSON
 *   parser refuses the second. Both in one object are a key given twice, refused as the
 *   duplicate-key check refuses one name twice (jackson-databind has no such check for aliases).</li>
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

    @Bean
    JsonMapperBuilderCustomizer integersInAsciiDigitsAndEachFieldOnce() {
        return builder -> builder.addModule(new SimpleModule("tandem-strict-fields")
                .setDeserializerModifier(new ValueDeserializerModifier() {
                    @Override
                    public ValueDeserializer<?> modifyDeserializer(DeserializationConfig config,
                                                                   BeanDescription.Supplier beanDesc,
                                                                   ValueDeserializer<?> deserializer) {
                        if (deserializer.logicalType() == LogicalType.Integer) {
                            return new AsciiIntegerStrings(deserializer);
                        }
                        if (deserializer instanceof BeanDeserializerBase) {
                            return new EachFieldOnce(deserializer);
                        }
                        return deserializer;
                    }
                }));
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

    /** Jackson's own integer deserializer, after a check that a string holding the integer is ASCII. */
    static final class AsciiIntegerStrings extends DelegatingDeserializer {

        AsciiIntegerStrings(ValueDeserializer<?> jacksons) {
            super(jacksons);
        }

        @Override
        protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> newDelegatee) {
            return new AsciiIntegerStrings(newDelegatee);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) {
            // Visible ASCII only: Jackson's parse then refuses whatever else is not a decimal.
            if (p.hasToken(JsonToken.VALUE_STRING) && !p.getString().chars().allMatch(c -> c > ' ' && c < 0x7F)) {
                return ctxt.handleWeirdStringValue(handledType(), p.getString(), "is not written in ASCII digits");
            }
            return super.deserialize(p, ctxt);
        }
    }

    /** Jackson's own deserializer of an object, reading it through {@link FieldNames}. */
    static final class EachFieldOnce extends DelegatingDeserializer {

        EachFieldOnce(ValueDeserializer<?> jacksons) {
            super(jacksons);
        }

        @Override
        protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> newDelegatee) {
            return new EachFieldOnce(newDelegatee);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) {
            return super.deserialize(p.isExpectedStartObjectToken() ? new FieldNames(p) : p, ctxt);
        }
    }

    /**
     * The parser as an object's deserializer reads it, refusing a name of that object (not of the
     * objects inside it, which their own deserializers check) whose proto name came before.
     */
    private static final class FieldNames extends JsonParserDelegate {

        private final TokenStreamContext object;
        private final Set<String> seen = new HashSet<>();

        FieldNames(JsonParser atStartOfObject) {
            super(atStartOfObject);
            object = atStartOfObject.streamReadContext();
        }

        @Override
        public JsonToken nextToken() {
            JsonToken token = delegate.nextToken();
            checkName();
            return token;
        }

        @Override
        public String nextName() {
            String name = delegate.nextName();
            checkName();
            return name;
        }

        @Override
        public int nextNameMatch(PropertyNameMatcher matcher) {
            int match = delegate.nextNameMatch(matcher);
            checkName();
            return match;
        }

        private void checkName() {
            if (delegate.hasToken(JsonToken.PROPERTY_NAME) && delegate.streamReadContext() == object
                    && !seen.add(FieldViolation.protoPath(delegate.currentName()))) {
                // The parser's own words for a name given twice, which JsonProblems answers as such.
                throw new StreamReadException(delegate, "Duplicate Object property \"" + delegate.currentName() + "\"");
            }
        }
    }
}
