package dev.tandem.cache;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupView;
import dev.tandem.group.LeaderboardView;
import dev.tandem.user.UserView;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The four caches, each with the type of its values, how its L2 keys are built and how values
 * travel through Redis. The names are the {@code cache} tag of every metric.
 *
 * <p>{@link #GROUP} and {@link #USER} are keyed by id and invalidated key by key (tombstones in
 * L2). {@link #GROUPS_PAGE} and {@link #LEADERBOARD} are invalidated a subject at a time, which in
 * L2 is a new generation for that subject (see {@link L2Tier}).
 */
public final class CacheName<V> {

    public static final CacheName<GroupView> GROUP = new CacheName<>(0, "group", false,
            ProtoCodec::encodeGroup, ProtoCodec::decodeGroup);
    public static final CacheName<GroupPage> GROUPS_PAGE = new CacheName<>(1, "groups-page", true,
            ProtoCodec::encodePage, ProtoCodec::decodePage);
    public static final CacheName<LeaderboardView> LEADERBOARD = new CacheName<>(2, "leaderboard", true,
            ProtoCodec::encodeLeaderboard, ProtoCodec::decodeLeaderboard);
    public static final CacheName<UserView> USER = new CacheName<>(3, "user", false,
            ProtoCodec::encodeUser, ProtoCodec::decodeUser);

    static final List<CacheName<?>> ALL = List.of(GROUP, GROUPS_PAGE, LEADERBOARD, USER);

    interface Encoder<V> {
        byte[] encode(V value);
    }

    interface Decoder<V> {
        V decode(byte[] bytes) throws InvalidProtocolBufferException;
    }

    private final int index;
    private final String name;
    private final boolean subjectScoped;
    private final Encoder<V> encoder;
    private final Decoder<V> decoder;

    private CacheName(int index, String name, boolean subjectScoped, Encoder<V> encoder, Decoder<V> decoder) {
        this.index = index;
        this.name = name;
        this.subjectScoped = subjectScoped;
        this.encoder = encoder;
        this.decoder = decoder;
    }

    static CacheName<?> byIndex(int index) {
        return ALL.get(index);
    }

    static Optional<CacheName<?>> byName(String name) {
        return ALL.stream().filter(c -> c.name.equals(name)).findFirst();
    }

    int index() {
        return index;
    }

    public String id() {
        return name;
    }

    boolean subjectScoped() {
        return subjectScoped;
    }

    byte[] encode(V value) {
        return encoder.encode(value);
    }

    V decode(byte[] bytes) throws InvalidProtocolBufferException {
        return decoder.decode(bytes);
    }

    /**
     * What an invalidation of this key is addressed to: the key itself, or for subject-scoped
     * caches its subject. L1 race detection and L2 generations both work at this grain.
     */
    Object scopeOf(Object key) {
        return subjectScoped ? ((SubjectScoped) key).subject() : key;
    }

    /**
     * How long {@code value} stays true by the passage of time alone, when that is less than
     * forever: a group lists its next sessions, so it must not outlive the start of the first one.
     */
    Optional<Duration> validFor(V value, Instant now) {
        if (value instanceof GroupView group && !group.nextSessions().isEmpty()) {
            return Optional.of(Duration.between(now, group.nextSessions().getFirst().startTime()));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return name;
    }
}
