package dev.tandem.cache;

import dev.tandem.error.DomainException;
import dev.tandem.group.GroupCaches;
import dev.tandem.group.GroupPage;
import dev.tandem.group.GroupsPageKey;
import dev.tandem.group.LeaderboardKey;
import dev.tandem.proto.internal.PageToken;

import dev.tandem.user.UserCaches;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Every cached read the services offer, as named probes whose answers (a value, or the error code)
 * can be compared between an instance under test and the reference instance (mode none).
 */
final class Reads {

    private Reads() {
    }

    /** The answer of one read: its value, or "ERR:<code>" when it failed with a domain error. */
    static Object answer(Supplier<?> read) {
        try {
            return read.get();
        } catch (DomainException e) {
            return "ERR:" + e.code();
        }
    }

    /**
     * A fixed set of reads over {@code groups}, {@code users} and two subjects, covering every cache:
     * groups (incl. a missing one), first and second pages (all subjects and one subject), default
     * and explicit sizes, leaderboards, users (incl. a missing one).
     */
    static Map<String, Object> all(Instance i, List<Long> groups, List<Long> users, List<String> subjects) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (long id : groups) {
            out.put("group " + id, answer(() -> i.groups.get(id)));
        }
        for (String subject : subjects) {
            for (int size : new int[]{0, 3}) {
                Object first = answer(() -> i.groups.list(subject, size, ""));
                out.put("page1 " + subject + "/" + size, first);
                if (first instanceof GroupPage page && !page.nextPageToken().isEmpty()) {
                    out.put("page2 " + subject + "/" + size, answer(() -> i.groups.list(subject, size, page.nextPageToken())));
                }
            }
            out.put("leaderboard " + subject + "/0", answer(() -> i.groups.leaderboard(subject, 0)));
            out.put("leaderboard " + subject + "/5", answer(() -> i.groups.leaderboard(subject, 5)));
        }
        for (long id : users) {
            out.put("user " + id, answer(() -> i.users.get(id)));
        }
        return out;
    }

    /** The reads whose answers differ between {@code actual} and {@code expected} (same probes). */
    static List<String> differing(Map<String, Object> actual, Map<String, Object> expected) {
        return expected.keySet().stream().filter(k -> !java.util.Objects.equals(actual.get(k), expected.get(k))).toList();
    }

    /** What the database says for an L1/L2 key of {@code cache}, read through the reference instance. */
    static Optional<?> truth(Instance reference, CacheName<?> cache, Object key) {
        Object answer = switch (key) {
            case Long id when cache == GroupCaches.GROUP -> answer(() -> reference.groups.get(id));
            case Long id when cache == UserCaches.USER -> answer(() -> reference.users.get(id));
            case GroupsPageKey page -> answer(() -> reference.groups.list(page.subject(), page.pageSize(),
                    token(page.subject(), page.afterId())));
            case LeaderboardKey board -> answer(() -> reference.groups.leaderboard(board.subject(), board.limit()));
            default -> throw new IllegalArgumentException(cache + " " + key);
        };
        return answer instanceof String s && s.startsWith("ERR:NOT_FOUND") ? Optional.empty() : Optional.of(answer);
    }

    /** The page token ListGroups issues (base64url of tandem.internal.PageToken). */
    static String token(String subject, long afterId) {
        if (afterId == 0) {
            return "";
        }
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(PageToken.newBuilder().setSubject(subject).setAfterId(afterId).build().toByteArray());
    }
}
