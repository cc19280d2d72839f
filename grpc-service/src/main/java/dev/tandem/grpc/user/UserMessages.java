package dev.tandem.grpc.user;

import dev.tandem.grpc.support.ProtoTime;
import dev.tandem.proto.v1.User;
import dev.tandem.user.UserView;

import static dev.tandem.grpc.support.ProtoTime.orEmpty;

/** The user read model to its tandem.v1 message. */
public final class UserMessages {

    private UserMessages() {
    }

    public static User user(UserView view) {
        User.Builder user = User.newBuilder()
                .setId(view.id())
                .setName(orEmpty(view.name()))
                .setEmail(orEmpty(view.email()));
        if (view.createTime() != null) {
            user.setCreateTime(ProtoTime.timestamp(view.createTime()));
        }
        return user.build();
    }
}
