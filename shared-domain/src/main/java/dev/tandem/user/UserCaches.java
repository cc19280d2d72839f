package dev.tandem.user;

import dev.tandem.cache.CacheCodec;
import dev.tandem.cache.CacheName;
import dev.tandem.cache.Invalidation;
import dev.tandem.proto.v1.User;

import java.util.List;

/**
 * The cache of the user feature, {@link #USER} (GetUser, by id, invalidated by id; values are the
 * tandem.v1 User of {@link UserProto}), and what its writes invalidate. The name is a metric tag and
 * part of Redis keys and log rows: it does not change.
 */
public final class UserCaches {

    private UserCaches() {
    }

    public static final CacheName<UserView> USER = CacheName.keyed("user",
            CacheCodec.of(view -> UserProto.user(view).toByteArray(),
                    bytes -> UserProto.userView(User.parseFrom(bytes))));

    /** Every cache of the feature, for the {@link dev.tandem.cache.CacheCatalog}. */
    public static final List<CacheName<?>> ALL = List.of(USER);

    /** The user {@code id}. */
    public static Invalidation user(long id) {
        return Invalidation.create().add(USER, id);
    }
}
