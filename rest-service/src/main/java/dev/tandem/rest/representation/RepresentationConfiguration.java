package dev.tandem.rest.representation;

import com.google.protobuf.Message;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.http.converter.autoconfigure.ServerHttpMessageConvertersCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ContentNegotiationConfigurer;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import tools.jackson.databind.json.JsonMapper;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins every feature's {@link Representations}: their views' {@link WireForms}, written by the JSON
 * and protobuf representations among the server's message converters (ahead of Jackson's), and the
 * conditional GETs of the views that declare an entity tag (and their documentation in /v3/api-docs) and
 * the If-Match of writes to them, and the reading of an empty protobuf body;
 * and the reading of Accept that chooses between the representations ({@link AcceptRanges}).
 */
@Configuration(proxyBeanMethods = false)
class RepresentationConfiguration {

    @Bean
    WireForms wireForms(ObjectProvider<Representations> features, JsonMapper mapper) {
        Map<Class<?>, Representations.Response> responses = new HashMap<>();
        features.orderedStream().forEach(feature -> responses.putAll(feature.responses));
        return new WireForms(responses, mapper);
    }

    @Bean
    ProtobufRepresentation protobufRepresentation(ObjectProvider<Representations> features, WireForms forms,
                                                  JsonMapper mapper) {
        Map<Class<?>, Message> requests = new HashMap<>();
        features.orderedStream().forEach(feature -> requests.putAll(feature.requests));
        return new ProtobufRepresentation(forms, requests, mapper);
    }

    @Bean
    ServerHttpMessageConvertersCustomizer representations(WireForms forms, ProtobufRepresentation protobuf) {
        JsonRepresentation json = new JsonRepresentation(forms);
        return converters -> converters.addCustomConverter(json).addCustomConverter(protobuf);
    }

    @Bean
    EmptyProtobufBodies emptyProtobufBodies(ProtobufRepresentation protobuf) {
        return new EmptyProtobufBodies(protobuf);
    }

    @Bean
    ConditionalGets conditionalGets(WireForms forms) {
        return new ConditionalGets(forms);
    }

    @Bean
    ConditionalGetsOpenApi conditionalGetsOpenApi(WireForms forms) {
        return new ConditionalGetsOpenApi(forms);
    }

    @Bean
    IfMatch ifMatch(WireForms forms) {
        return new IfMatch(forms);
    }

    /**
     * Accept as RFC 9110 reads it, for every route: the one strategy (the service negotiates by the
     * Accept header only, no path extension or query parameter, as Boot's defaults do), and the
     * refusal of an unacceptable route before its handler runs.
     */
    @Bean
    WebMvcConfigurer acceptRanges() {
        AcceptRanges accept = new AcceptRanges();
        return new WebMvcConfigurer() {
            @Override
            public void configureContentNegotiation(ContentNegotiationConfigurer configurer) {
                configurer.strategies(List.of(accept));
            }

            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(new AcceptRanges.RefuseBeforeHandling(accept));
            }
        };
    }
}
