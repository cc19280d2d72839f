package dev.tandem.rest.representation;

import com.google.protobuf.Message;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.http.converter.autoconfigure.ServerHttpMessageConvertersCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Joins every feature's {@link Representations}: the protobuf representation among the server's
 * message converters, and the conditional GETs of the views that declare an entity tag.
 */
@Configuration(proxyBeanMethods = false)
class RepresentationConfiguration {

    @Bean
    ServerHttpMessageConvertersCustomizer protobufRepresentation(ObjectProvider<Representations> features,
                                                                 JsonMapper mapper) {
        Map<Class<?>, Function<Object, ? extends Message>> responses = new HashMap<>();
        responses(features).forEach((view, response) -> responses.put(view, response.toMessage()));
        Map<Class<?>, Message> requests = new HashMap<>();
        features.orderedStream().forEach(feature -> requests.putAll(feature.requests));
        ProtobufRepresentation converter = new ProtobufRepresentation(responses, requests, mapper);
        return converters -> converters.addCustomConverter(converter);
    }

    @Bean
    ConditionalGets conditionalGets(ObjectProvider<Representations> features) {
        return new ConditionalGets(responses(features));
    }

    private static Map<Class<?>, Representations.Response> responses(ObjectProvider<Representations> features) {
        Map<Class<?>, Representations.Response> responses = new HashMap<>();
        features.orderedStream().forEach(feature -> responses.putAll(feature.responses));
        return responses;
    }
}
