package dev.tandem.rest.hello;

import dev.tandem.proto.v1.HelloResponse;
import dev.tandem.rest.representation.Representations;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The hello-world's protobuf representation: tandem.v1.HelloResponse, what the gRPC wire's Hello sends. */
@Configuration(proxyBeanMethods = false)
class HelloRepresentations {

    @Bean
    Representations helloMessages() {
        return new Representations().response(HelloController.Hello.class,
                hello -> HelloResponse.newBuilder().setMessage(hello.message()).build());
    }
}
