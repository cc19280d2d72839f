package dev.tandem.user;

import dev.tandem.proto.v1.User;

import static dev.tandem.config.ProtoValues.instant;
import static dev.tandem.config.ProtoValues.orEmpty;
import static dev.tandem.config.ProtoValues.strict;
import static dev.tandem.config.ProtoValues.timestamp;

/**
 * The user read model as its tandem.v1 message — the one mapping, used by the gRPC wire and by
 * the cache's L2 codec ({@link UserCaches}); see {@code GroupProto} for the rules both follow.
 */
public final class UserProto {

    private UserProto() {
    }

    public static User user(UserView view) {
        User.Builder user = User.newBuilder()
                .setId(view.id())
                .setName(orEmpty(view.name()))
                .setEmail(orEmpty(view.email()));
        if (view.createTime() != null) {
            user.setCreateTime(timestamp(view.createTime()));
        }
        return user.build();
    }

    /** What the cache reads back from L2; refuses fields this build does not know. */
    public static UserView userView(User message) {
        User u = strict(message);
        return new UserView(u.getId(), u.getName(), u.getEmail(), instant(u.getCreateTime()));
    }
}
