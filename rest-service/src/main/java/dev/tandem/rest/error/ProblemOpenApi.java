package dev.tandem.rest.error;

import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

/**
 * Documents the error answers in /v3/api-docs: springdoc cannot see them, because
 * {@link RestErrors} builds them at run time. Every operation gets the same two ranges, 4XX and
 * 5XX, with the problem+json body that {@link RestErrors} writes.
 */
@Component
public class ProblemOpenApi implements OpenApiCustomizer {

    static final String SCHEMA = "Problem";

    @Override
    public void customise(io.swagger.v3.oas.models.OpenAPI openApi) {
        openApi.getComponents().addSchemas(SCHEMA, problemSchema());
        Content problem = new Content().addMediaType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + SCHEMA)));
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().values().forEach(path -> path.readOperations().forEach(operation -> {
            operation.getResponses().addApiResponse("4XX", new ApiResponse()
                    .description("The request was rejected; `code` is the gRPC status name (INVALID_ARGUMENT, "
                            + "NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, ABORTED, ...); 429 RESOURCE_EXHAUSTED "
                            + "when the client is above its rate limit: retry after the Retry-After seconds")
                    .content(problem));
            operation.getResponses().addApiResponse("5XX", new ApiResponse()
                    .description("The server failed; `code` is INTERNAL, UNAVAILABLE (503, the database is down; "
                            + "retry after the Retry-After seconds) or DEADLINE_EXCEEDED (504)")
                    .content(problem));
        }));
    }

    private static Schema<?> problemSchema() {
        ObjectSchema violation = new ObjectSchema();
        violation.addProperty("field", new StringSchema().description("proto field path, e.g. group.capacity"));
        violation.addProperty("description", new StringSchema());

        ObjectSchema resource = new ObjectSchema();
        resource.addProperty("type", new StringSchema().description("e.g. group, user, membership, rating"));
        resource.addProperty("name", new StringSchema());

        ObjectSchema problem = new ObjectSchema();
        problem.description("RFC 9457 problem details with the gRPC wire's error code and details");
        problem.addProperty("type", new StringSchema().description("absent: about:blank"));
        problem.addProperty("title", new StringSchema());
        problem.addProperty("status", new IntegerSchema());
        problem.addProperty("detail", new StringSchema());
        problem.addProperty("instance", new StringSchema());
        problem.addProperty("code", new StringSchema().description("the gRPC status name"));
        problem.addProperty("fieldViolations", new ArraySchema().items(violation)
                .description("google.rpc.BadRequest field violations, when fields are to blame"));
        problem.addProperty("resource", resource.description("google.rpc.ResourceInfo, when a resource is to blame"));
        return problem;
    }
}
