package dev.tandem.rest.representation;

import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.http.HttpHeaders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.method.HandlerMethod;

/**
 * Documents {@link ConditionalGets} in /v3/api-docs, as the writes' If-Match is documented by their
 * parameters: a GET answering a declared view takes If-None-Match and may answer 304, and its 200
 * carries the ETag when the view declares a tag (the hello-world declares none: it answers only
 * {@code *} with 304). Read off the views' declarations ({@link WireForms}), so the document names
 * exactly the reads that revalidate; without it a client generated from the document could not.
 */
final class ConditionalGetsOpenApi implements OperationCustomizer {

    private final WireForms forms;

    ConditionalGetsOpenApi(WireForms forms) {
        this.forms = forms;
    }

    @Override
    public Operation customize(Operation operation, HandlerMethod handler) {
        Class<?> view = handler.getReturnType().getParameterType();
        if (!handler.hasMethodAnnotation(GetMapping.class) || !forms.declares(view) || operation.getResponses() == null) {
            return operation;
        }
        Representations.EntityTag tag = forms.entityTagOf(view);
        if (tag == Representations.EntityTag.NONE) {
            return revalidated(operation,
                    "* (any current representation) answers 304 with no body (RFC 9110 13.1.2); the "
                            + "answer has no ETag, so a list of tags never matches and gets 200.",
                    "Not Modified, on GET and HEAD: the If-None-Match was *; no body, and the Vary the "
                            + "200 would carry (RFC 9110 15.4.5).");
        }
        String kind = tag == Representations.EntityTag.STRONG
                ? "a strong tag, one per representation (JSON, protobuf)"
                : "a weak tag (W/), one per representation (JSON, protobuf)";
        ApiResponse ok = operation.getResponses().get("200");
        if (ok != null) {
            ok.addHeaderObject(HttpHeaders.ETAG, new Header()
                    .description("The answer's entity tag: " + kind + "; sent with Cache-Control: no-cache.")
                    .schema(new StringSchema()));
        }
        return revalidated(operation,
                "The ETag(s) of the copies the client holds, a comma-separated list, or * (any current "
                        + "representation): when one is current the answer is 304 with no body. Weak comparison "
                        + "(RFC 9110 13.1.2): a tag matches with or without W/; another representation's tag does not.",
                "Not Modified, on GET and HEAD: the If-None-Match named the current ETag (or was *); "
                        + "no body, and the ETag, Cache-Control and Vary the 200 would carry (RFC 9110 15.4.5).");
    }

    /** The If-None-Match parameter and the 304 answer, each described as {@code operation}'s view has them. */
    private static Operation revalidated(Operation operation, String ifNoneMatch, String notModified) {
        operation.addParametersItem(new HeaderParameter()
                .name(HttpHeaders.IF_NONE_MATCH)
                .required(false)
                .description(ifNoneMatch)
                .schema(new StringSchema()));
        operation.getResponses().addApiResponse("304", new ApiResponse().description(notModified));
        return operation;
    }
}
