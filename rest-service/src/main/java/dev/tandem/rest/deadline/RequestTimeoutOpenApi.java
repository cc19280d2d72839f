package dev.tandem.rest.deadline;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

import java.math.BigDecimal;

/** Documents the optional {@value RequestTimeout#HEADER} request header on every operation of /v3/api-docs. */
@Component
public class RequestTimeoutOpenApi implements OpenApiCustomizer {

    @Override
    public void customise(OpenAPI openApi) {
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().values().forEach(path -> path.readOperations().forEach(operation ->
                operation.addParametersItem(new HeaderParameter()
                        .name(RequestTimeout.HEADER)
                        .required(false)
                        .description("This request's timeout in milliseconds, an integer from 1 to "
                                + RequestTimeout.MAX_MILLIS + ", capped by the server's "
                                + "tandem.limits.request-timeout. When it passes, the database work is cancelled "
                                + "and rolled back and the answer is 504 with code DEADLINE_EXCEEDED. Zero, "
                                + "negative or not an integer: 400 with code INVALID_ARGUMENT naming the header.")
                        .schema(new IntegerSchema().minimum(BigDecimal.ONE)
                                .maximum(BigDecimal.valueOf(RequestTimeout.MAX_MILLIS))))));
    }
}
