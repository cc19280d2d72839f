package dev.tandem.rest.representation;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Type;

/**
 * An empty protobuf request body is the empty message, not a missing body. Spring does not ask a
 * converter to read a body with no bytes: it reports "required request body is missing" unless an
 * advice supplies the body, which this one does for the protobuf representation, so that
 * {@code POST /api/v1/users} with zero bytes of {@code application/x-protobuf} names the missing
 * {@code name} and {@code email} as gRPC does for an empty CreateUserRequest. An empty JSON body
 * stays an error: zero bytes are not a JSON document.
 */
@ControllerAdvice
final class EmptyProtobufBodies extends RequestBodyAdviceAdapter {

    private final ProtobufRepresentation protobuf;

    EmptyProtobufBodies(ProtobufRepresentation protobuf) {
        this.protobuf = protobuf;
    }

    @Override
    public boolean supports(MethodParameter parameter, Type targetType,
                            Class<? extends HttpMessageConverter<?>> converterType) {
        return converterType == ProtobufRepresentation.class;
    }

    @Override
    public Object handleEmptyBody(Object body, HttpInputMessage input, MethodParameter parameter, Type targetType,
                                  Class<? extends HttpMessageConverter<?>> converterType) {
        try {
            return protobuf.emptyMessage(parameter.getParameterType());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
