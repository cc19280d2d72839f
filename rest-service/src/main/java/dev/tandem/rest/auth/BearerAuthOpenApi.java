package dev.tandem.rest.auth;

import dev.tandem.auth.DevTokens;
import dev.tandem.auth.WriteAccessFilter;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

/**
 * Documents write auth in /v3/api-docs: springdoc cannot see the filter (shared-domain's
 * {@link WriteAccessFilter}) that requires it. A bearer (JWT) security scheme, required by every
 * operation whose method the filter treats as a write; reads carry no requirement.
 */
@Component
public class BearerAuthOpenApi implements OpenApiCustomizer {

    static final String SCHEME = "bearerAuth";

    @Override
    public void customise(OpenAPI openApi) {
        if (openApi.getComponents() == null) {
            openApi.setComponents(new Components());
        }
        openApi.getComponents().addSecuritySchemes(SCHEME, new SecurityScheme()
                .type(SecurityScheme.Type.HTTP).scheme("bearer").bearerFormat("JWT")
                .description("HS256 JWT, issuer " + DevTokens.ISSUER + ", scope " + DevTokens.WRITE_SCOPE
                        + " (make token prints a development one). Missing or invalid: 401 UNAUTHENTICATED; "
                        + "without the scope: 403 PERMISSION_DENIED."));
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().values().forEach(path -> path.readOperationsMap().forEach((method, operation) -> {
            if (WriteAccessFilter.isWrite(method.name())) {
                operation.addSecurityItem(new SecurityRequirement().addList(SCHEME));
            }
        }));
    }
}
