package dev.tandem.rest;

import org.springframework.beans.PropertyEditorRegistry;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.format.support.FormattingConversionService;
import org.springframework.validation.Validator;
import org.springframework.web.bind.MissingPathVariableException;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.support.ConfigurableWebBindingInitializer;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

import java.beans.PropertyEditorSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * {@code GET /api/v1/groups/{id}}, about 1 µs of the request's 33 (docs/hot-path.md, the hot
 * path's lab notebook). The initializer registers the same editors with a plain call. Boot
 * uses a {@link ConfigurableWebBindingInitializer} bean in place of its own, so this one carries
 * what Boot's would: the MVC conversion service and validator.
 *
 * <p>Path ids ({@code @PathVariable long}, every {@code {id}}, {@code {group_id}} and {@code {user_id}})
 * do not go through a binder at all: {@link DecimalPathIds} parses them with {@link Long#parseLong},
 * which takes exactly what the editor takes, and fails with the exception the binder would have
 * raised, so the 400 is the same. Query parameters keep the editors.
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

    /**
     * Puts {@link DecimalPathIds} ahead of Spring's own resolvers: resolvers added through
     * {@code WebMvcConfigurer} come after Spring's, whose path variable resolver would claim the
     * parameter first. Static: a post-processor is made before the other beans.
     */
    @Bean
    static BeanPostProcessor decimalPathIdsFirst() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof RequestMappingHandlerAdapter adapter && adapter.getArgumentResolvers() != null) {
                    List<HandlerMethodArgumentResolver> resolvers = new ArrayList<>();
                    resolvers.add(new DecimalPathIds());
                    resolvers.addAll(adapter.getArgumentResolvers());
                    adapter.setArgumentResolvers(resolvers);
                }
                return bean;
            }
        };
    }

    /**
     * A {@code @PathVariable long} read straight from the matched path's variables. Spring's path
     * variable resolver makes a data binder for every such parameter on every request and converts
     * through it (with the editors above); on a warm {@code GET /api/v1/groups/{id}} that was about
     * 0.9 µs of the 33 (docs/hot-path.md). A failure is the
     * {@link MethodArgumentTypeMismatchException} Spring's resolver raises, with the same value,
     * type and name, so RestErrors answers it with the same problem.
     */
    static final class DecimalPathIds implements HandlerMethodArgumentResolver {

        /** Each parameter's variable name, as Spring's resolver caches its own. */
        private final Map<MethodParameter, String> names = new ConcurrentHashMap<>();

        @Override
        public boolean supportsParameter(MethodParameter parameter) {
            return parameter.getParameterType() == long.class && parameter.hasParameterAnnotation(PathVariable.class);
        }

        @Override
        public Object resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer,
                                      NativeWebRequest request, WebDataBinderFactory binderFactory)
                throws MissingPathVariableException {
            String name = names.computeIfAbsent(parameter, DecimalPathIds::variableName);
            @SuppressWarnings("unchecked")
            Map<String, String> variables = (Map<String, String>) request.getAttribute(
                    HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
            String value = variables == null ? null : variables.get(name);
            if (value == null) {
                // A mapping without this variable: our mistake, a 500, as with Spring's resolver.
                throw new MissingPathVariableException(name, parameter);
            }
            try {
                return Long.parseLong(asciiOnly(value));
            } catch (NumberFormatException e) {
                throw new MethodArgumentTypeMismatchException(value, long.class, name, parameter, e);
            }
        }

        private static String variableName(MethodParameter parameter) {
            PathVariable variable = parameter.getParameterAnnotation(PathVariable.class);
            String name = variable == null ? "" : variable.name();
            if (name.isEmpty()) {
                name = parameter.getParameterName();
            }
            if (name == null) {
                throw new IllegalStateException("the path variable of " + parameter
                        + " has no name: compile with -parameters or name it in @PathVariable");
            }
            return name;
        }
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
            setValue(text == null || text.isEmpty() ? null : parse.apply(asciiOnly(text)));
        }
    }

    /**
     * {@code text}, if it is ASCII: Java's parsers take any Unicode digit ("١٢" is 12, "１０" is 10),
     * and a decimal here is written with 0-9 only, as gRPC's integers and every other number the API
     * reads (a position, X-Request-Timeout) are.
     */
    static String asciiOnly(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0x7F) {
                throw new NumberFormatException("not an ASCII decimal: " + text);
            }
        }
        return text;
    }
}
