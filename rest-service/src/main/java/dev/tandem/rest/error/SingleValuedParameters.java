package dev.tandem.rest.error;

import dev.tandem.error.DomainException;
import dev.tandem.error.FieldViolation;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every query parameter of the API takes one value: one sent more than once ({@code ?subject=a&subject=b})
 * is 400 INVALID_ARGUMENT naming it and the values sent, before the handler runs. Left to binding, a
 * text parameter got the values joined by commas ("a,b") and was refused for a format the client
 * never sent, and a number parameter for not converting. A parameter under both its names, the proto
 * name and the lowerCamelCase one ({@code ?page_size=5&pageSize=900}), is one given twice too, named
 * by its proto name: the handler used the first it looked at, or failed on the other alone.
 *
 * <p>An MVC interceptor, as {@code RequestTimeout} is: what it throws goes through RestErrors, and it
 * sees the handler, so it asks only for the parameters the handler takes.
 */
@Configuration(proxyBeanMethods = false)
public class SingleValuedParameters implements WebMvcConfigurer {

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new Interceptor()).addPathPatterns("/api/**");
    }

    private static final class Interceptor implements HandlerInterceptor {

        @Override
        public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
            // No query, nothing repeated: the bench's GetGroup (tens of thousands a second) pays one check.
            if (request.getQueryString() != null && handler instanceof HandlerMethod method) {
                // The names sent, by the proto name they spell, each with its values.
                Map<String, Map<String, String[]>> sent = new LinkedHashMap<>();
                for (MethodParameter parameter : method.getMethodParameters()) {
                    RequestParam param = parameter.getParameterAnnotation(RequestParam.class);
                    if (param == null) {
                        continue;
                    }
                    String name = param.name().isEmpty() ? parameter.getParameterName() : param.name();
                    // The query's values only: the API takes no form bodies, and Tomcat parses one
                    // for POST alone (parseBodyMethods), where no handler takes a @RequestParam.
                    String[] values = request.getParameterValues(name);
                    if (values != null) {
                        sent.computeIfAbsent(FieldViolation.protoPath(name), field -> new LinkedHashMap<>()).put(name, values);
                    }
                }
                sent.forEach(Interceptor::requireOneValue);
            }
            return true;
        }

        private static void requireOneValue(String field, Map<String, String[]> valuesByName) {
            List<String> values = valuesByName.values().stream().flatMap(Arrays::stream).toList();
            if (values.size() > 1) {
                // One name, as sent (?pageSize=1&pageSize=2 is pageSize's mistake); both, the proto name.
                String named = valuesByName.size() == 1 ? valuesByName.keySet().iterator().next() : field;
                String as = valuesByName.size() == 1 ? "" : " (as " + String.join(" or ", valuesByName.keySet()) + ")";
                throw DomainException.invalid(named, "must be given once" + as + ", got " + values.size() + " values: '"
                        + String.join("', '", values) + "'");
            }
        }
    }
}
