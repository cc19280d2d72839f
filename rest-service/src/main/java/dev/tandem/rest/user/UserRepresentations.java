package dev.tandem.rest.user;

import dev.tandem.rest.representation.Representations;
import dev.tandem.rest.representation.Representations.EntityTag;
import dev.tandem.user.UserProto;
import dev.tandem.user.UserView;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The user operations' representations: the messages the gRPC wire sends and receives, and GetUser's strong entity tag. */
@Configuration(proxyBeanMethods = false)
class UserRepresentations {

    @Bean
    Representations userMessages() {
        return new Representations()
                .response(UserView.class, UserProto::user, EntityTag.STRONG)
                .request(CreateUserRequest.class, dev.tandem.proto.v1.CreateUserRequest.getDefaultInstance());
    }
}
