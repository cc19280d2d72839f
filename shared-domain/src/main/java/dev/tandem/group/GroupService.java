package dev.tandem.group;

import dev.tandem.cache.Invalidation;
import dev.tandem.cache.TieredCache;
import dev.tandem.error.DomainException;
import dev.tandem.error.FieldViolation;
import dev.tandem.error.Validation;
import dev.tandem.config.Timestamps;
import dev.tandem.limits.LimitsProperties;
import dev.tandem.user.UserService;
import io.micrometer.observation.annotation.Observed;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.orm.ObjectOptimisticLockingFailureException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Every group operation, once, for both wires. Reads go through the cache, which calls the SQL
 * (in a read-only transaction, see {@link GroupQueries}) only on a miss; validation comes first,
 * so invalid requests are never cached. Each write is one transaction that either applies
 * completely or changes nothing, and names what it made stale; the cache drops that after the
 * commit.
 */
// A span per call ("GroupService#get", ...) while tracing is on: Boot's ObservedAspect is registered only then
// (management.observations.annotations.enabled, see tandem-service.yml); off, calls go straight in.
@Observed(name = "tandem.service")
@Service
public class GroupService {

    public static final int DEFAULT_PAGE_SIZE = 20;
    public static final int DEFAULT_LEADERBOARD_LIMIT = 10;
    public static final int MAX_LEADERBOARD_LIMIT = 100;

    private final StudyGroupRepository groups;
    private final GroupMemberRepository members;
    private final RatingRepository ratings;
    private final StudySessionRepository sessions;
    private final GroupQueries queries;
    private final UserService users;
    private final Validation validation;
    private final Clock clock;
    private final TieredCache cache;
    /** tandem.limits.max-page-size: a page costs one query of that many rows and a response that big. */
    private final int maxPageSize;

    public GroupService(StudyGroupRepository groups, GroupMemberRepository members, RatingRepository ratings,
                        StudySessionRepository sessions, GroupQueries queries, UserService users,
                        Validation validation, Clock clock, TieredCache cache, LimitsProperties limits) {
        this.cache = cache;
        this.maxPageSize = limits.maxPageSize();
        this.groups = groups;
        this.members = members;
        this.ratings = ratings;
        this.sessions = sessions;
        this.queries = queries;
        this.users = users;
        this.validation = validation;
        this.clock = clock;
    }

    // ---- reads -------------------------------------------------------------------------------

    // No @Transactional on the reads: a cache hit must not cost a connection and a transaction.
    public GroupView get(long id) {
        return cache.get(GroupCaches.GROUP, id, () -> queries.findGroup(id, clock.instant()))
                .orElseThrow(() -> DomainException.notFound("group", id));
    }

    private static final Pattern SUBJECT = Pattern.compile(GroupFields.SUBJECT_REGEX);

    /**
     * What is wrong with a subject filter, if anything: it is "" (every subject) or a subject as
     * CreateGroup takes it. Why no more lenient: MySQL compares subjects ignoring case, accents and
     * trailing spaces, so "PHYSICS " would find physics's groups, but cached under a key of its own
     * that no write to physics clears (writes clear the pages and leaderboards of the subject as
     * stored), and it would be served stale for the caches' lifetimes.
     */
    private static Optional<FieldViolation> subjectFilterViolation(String filter) {
        if (filter.codePointCount(0, filter.length()) > 50) {
            return Optional.of(new FieldViolation("subject", "length must be between 0 and 50"));
        }
        if (!filter.isEmpty() && !SUBJECT.matcher(filter).matches()) {
            return Optional.of(new FieldViolation("subject",
                    "must be empty (every subject) or a subject: lowercase letters, digits and single hyphens"));
        }
        return Optional.empty();
    }

    /** One page of groups of {@code subject} ("" for all) in id order. */
    public GroupPage list(String subject, int pageSize, String pageToken) {
        String filter = subject == null ? "" : subject;
        List<FieldViolation> violations = new ArrayList<>();
        if (pageSize < 0 || pageSize > maxPageSize) {
            violations.add(new FieldViolation("page_size", "must be between 1 and " + maxPageSize + " (0 for the default)"));
        }
        subjectFilterViolation(filter).ifPresent(violations::add);
        Validation.throwIfAny(violations);
        // The default never exceeds a configured maximum below it.
        int size = pageSize == 0 ? Math.min(DEFAULT_PAGE_SIZE, maxPageSize) : pageSize;
        long afterId = PageTokens.decodeAfterId(pageToken, filter);
        return cache.get(GroupCaches.GROUPS_PAGE, new GroupsPageKey(filter, size, afterId),
                () -> Optional.of(page(filter, size, afterId))).orElseThrow();
    }

    private GroupPage page(String filter, int size, long afterId) {
        // One row more than the page tells whether another page follows, without a COUNT.
        List<GroupSummary> rows = queries.search(filter, afterId, size + 1);
        if (rows.size() <= size) {
            return new GroupPage(rows, "");
        }
        List<GroupSummary> page = rows.subList(0, size);
        return new GroupPage(List.copyOf(page), PageTokens.encode(filter, page.getLast().id()));
    }

    public LeaderboardView leaderboard(String subject, int limit) {
        String filter = subject == null ? "" : subject;
        List<FieldViolation> violations = new ArrayList<>();
        if (limit < 0 || limit > MAX_LEADERBOARD_LIMIT) {
            violations.add(new FieldViolation("limit", "must be between 1 and " + MAX_LEADERBOARD_LIMIT + " (0 for the default)"));
        }
        subjectFilterViolation(filter).ifPresent(violations::add);
        Validation.throwIfAny(violations);
        int size = limit == 0 ? DEFAULT_LEADERBOARD_LIMIT : limit;
        return cache.get(GroupCaches.LEADERBOARD, new LeaderboardKey(filter, size),
                () -> Optional.of(new LeaderboardView(filter, queries.leaderboard(filter, size)))).orElseThrow();
    }

    // ---- writes ------------------------------------------------------------------------------

    @Transactional
    public GroupView create(NewGroup command) {
        List<FieldViolation> violations = new ArrayList<>(validation.violations(command.fields(), ""));
        violations.addAll(validation.violations(command, ""));
        Validation.throwIfAny(violations);
        users.requireExists(command.ownerId());

        GroupFields fields = command.fields();
        Instant now = now();
        StudyGroup group = groups.save(new StudyGroup(fields.name(), fields.subject(), fields.description(),
                fields.capacity(), command.ownerId(), now));
        members.save(new GroupMember(group.getId(), command.ownerId(), now));
        members.flush();
        // A new group has no ratings, so no leaderboard lists it yet; a "not found" of its id may be cached.
        cache.invalidateAfterCommit(GroupCaches.group(group.getId()).and(GroupCaches.pagesOf(fields.subject())));
        return get(group.getId());
    }

    /** How many of the mask's refused paths the error names, and how much of each. */
    private static final int PATHS_NAMED = 3;
    private static final int PATH_CHARACTERS_NAMED = 40;

    /**
     * The refusal of a mask's paths that cannot be updated: the first few, each cut short, and how
     * many more. A mask may name any number of paths of any length (up to the request's 64 KB), and
     * one violation per path, each echoing it whole, made the error grow with the request: 500 paths
     * of 100 characters came back as 500 violations in the gRPC trailers (grpc-java's client still
     * read them; a client or proxy with a smaller header limit may not) or in the problem+json.
     */
    private static String cannotBeUpdated(List<String> paths) {
        String named = paths.stream().limit(PATHS_NAMED)
                .map(path -> "'" + FieldViolation.shortened(path, PATH_CHARACTERS_NAMED) + "'")
                .collect(Collectors.joining(", "));
        String more = paths.size() > PATHS_NAMED ? " and " + (paths.size() - PATHS_NAMED) + " more" : "";
        return named + more + " cannot be updated; updatable: " + GroupChanges.UPDATABLE;
    }

    @Transactional
    public GroupView update(GroupChanges changes) {
        return update(changes, null);
    }

    /**
     * UpdateGroup, performed only if {@code condition} accepts the group as it is (REST's If-Match):
     * see {@link #requireCondition}. Null is no condition.
     */
    @Transactional
    public GroupView update(GroupChanges changes, Consumer<GroupView> condition) {
        List<FieldViolation> violations = new ArrayList<>();
        if (changes.paths().isEmpty()) {
            violations.add(new FieldViolation("update_mask", "must name at least one of " + GroupChanges.UPDATABLE));
        }
        List<String> refused = changes.paths().stream().filter(path -> !GroupChanges.UPDATABLE.contains(path)).sorted().toList();
        if (!refused.isEmpty()) {
            violations.add(new FieldViolation("update_mask", cannotBeUpdated(refused)));
        }
        // Required: versions start at 1, so 0 (proto3's absent) names no version a client read. It was
        // judged stale, ABORTED "read it again and retry", which no retry of the request gets past.
        if (changes.expectedVersion() <= 0) {
            violations.add(new FieldViolation("expected_version", "is required: the version the group was read at (1 or more)"));
        }
        // The masked values first, like every request field: one the update could never apply is the
        // client's mistake whatever the group's version (or whether it exists), not a conflict to retry.
        violations.addAll(maskedValueViolations(changes));
        Validation.throwIfAny(violations);

        // Locked, so that a capacity cut and a concurrent join cannot both pass their checks.
        StudyGroup group = groups.findLockedById(changes.id())
                .orElseThrow(() -> DomainException.notFound("group", changes.id()));
        requireCondition(group.getId(), condition);
        requireVersion(group, changes.expectedVersion());

        GroupFields current = group.fields();
        GroupFields wanted = changes.values();
        GroupFields merged = new GroupFields(
                changes.paths().contains("name") ? wanted.name() : current.name(),
                changes.paths().contains("subject") ? wanted.subject() : current.subject(),
                changes.paths().contains("description") ? nullToEmpty(wanted.description()) : current.description(),
                changes.paths().contains("capacity") ? wanted.capacity() : current.capacity());
        // Not validated again: every rule of GroupFields is a field's own, the masked values passed
        // above and the others are the stored ones.
        long memberCount = members.countByGroupId(group.getId());
        if (merged.capacity() < memberCount) {
            throw DomainException.failedPrecondition("capacity " + merged.capacity() + " is below the group's "
                    + memberCount + " members");
        }
        group.apply(merged);
        try {
            groups.flush();
        } catch (ObjectOptimisticLockingFailureException raced) {
            throw staleVersion(group.getId(), changes.expectedVersion());
        }
        Invalidation stale = GroupCaches.group(group.getId());
        // Lists and leaderboards show name, subject and capacity, not the description.
        if (changes.paths().stream().anyMatch(p -> !p.equals("description"))) {
            stale.and(GroupCaches.pagesOf(current.subject())).and(GroupCaches.pagesOf(merged.subject()))
                    .and(GroupCaches.leaderboardsOf(current.subject())).and(GroupCaches.leaderboardsOf(merged.subject()));
        }
        cache.invalidateAfterCommit(stale);
        return get(group.getId());
    }

    /**
     * The violations of the values an update's mask names (as the merged group would show them). The
     * fields the mask leaves keep their stored values, so these are all the merged group can have:
     * GroupFields has no rule across fields.
     */
    private List<FieldViolation> maskedValueViolations(GroupChanges changes) {
        GroupFields wanted = changes.values();
        GroupFields asMerged = new GroupFields(wanted.name(), wanted.subject(), nullToEmpty(wanted.description()),
                wanted.capacity());
        return validation.violations(asMerged, "group.").stream()
                .filter(v -> changes.paths().contains(v.field().substring("group.".length())))
                .toList();
    }

    @Transactional
    public void delete(long id, long expectedVersion) {
        delete(id, expectedVersion, null);
    }

    /** DeleteGroup, performed only if {@code condition} accepts the group as it is: see {@link #requireCondition}. */
    @Transactional
    public void delete(long id, long expectedVersion, Consumer<GroupView> condition) {
        if (expectedVersion < 0) {
            throw DomainException.invalid("expected_version", "must not be negative (0 deletes whatever the version)");
        }
        StudyGroup group = groups.findLockedById(id).orElseThrow(() -> DomainException.notFound("group", id));
        requireCondition(id, condition);
        if (expectedVersion != 0) {
            requireVersion(group, expectedVersion);
        }
        groups.delete(group);
        groups.flush();
        cache.invalidateAfterCommit(everythingAbout(group));
    }

    @Transactional
    public MembershipView join(long groupId, long userId) {
        // Checked first, like every request field: an absent (0) or negative user_id is the
        // client's mistake, not a user that happens not to exist.
        if (userId <= 0) {
            throw DomainException.invalid("user_id", "must be greater than 0");
        }
        // The row lock serialises joins of one group: count-then-insert cannot overfill it.
        StudyGroup group = groups.findLockedById(groupId).orElseThrow(() -> DomainException.notFound("group", groupId));
        users.requireExists(userId);
        if (members.existsById(new MemberKey(groupId, userId))) {
            throw alreadyMember(groupId, userId);
        }
        if (members.countByGroupId(groupId) >= group.getCapacity()) {
            throw DomainException.failedPrecondition("group " + groupId + " is full (capacity " + group.getCapacity() + ")");
        }
        MembershipView joined;
        try {
            joined = members.saveAndFlush(new GroupMember(groupId, userId, now())).toView();
        } catch (DataIntegrityViolationException raced) {
            throw alreadyMember(groupId, userId);
        }
        // The member count shows in the group, its lists and its leaderboards.
        cache.invalidateAfterCommit(everythingAbout(group));
        return joined;
    }

    @Transactional
    public void leave(long groupId, long userId) {
        // Locked like join: two leaves of one member would otherwise both pass the check and the
        // second would fail its DELETE with an optimistic-locking error instead of NOT_FOUND.
        StudyGroup group = groups.findLockedById(groupId).orElseThrow(() -> DomainException.notFound("group", groupId));
        MemberKey key = new MemberKey(groupId, userId);
        if (!members.existsById(key)) {
            throw DomainException.notFound("membership", groupId + "/" + userId);
        }
        if (group.getOwnerId() == userId) {
            throw DomainException.failedPrecondition("the owner cannot leave group " + groupId + "; delete the group instead");
        }
        members.deleteById(key);
        members.flush();
        cache.invalidateAfterCommit(everythingAbout(group));
    }

    @Transactional
    public RatingView rate(NewRating command) {
        validation.check(command);
        // Locked like join: the invalidation below names the group's subject, so the subject must
        // not change before this commits. Read without the lock, a concurrent UpdateGroup could move
        // the group to another subject and commit in between; readers would then cache the new
        // subject's lists and leaderboards without this rating, and nothing would invalidate them.
        StudyGroup group = groups.findLockedById(command.groupId())
                .orElseThrow(() -> DomainException.notFound("group", command.groupId()));
        users.requireExists(command.userId());
        MemberKey key = new MemberKey(command.groupId(), command.userId());
        if (ratings.existsById(key)) {
            throw alreadyRated(command.groupId(), command.userId());
        }
        RatingView rated;
        try {
            rated = ratings.saveAndFlush(new Rating(command.groupId(), command.userId(), command.stars(),
                    command.comment(), now())).toView();
        } catch (DataIntegrityViolationException raced) {
            throw alreadyRated(command.groupId(), command.userId());
        }
        // The average shows in the group, its lists and its leaderboards.
        cache.invalidateAfterCommit(everythingAbout(group));
        return rated;
    }

    @Transactional
    public SessionView schedule(NewSession command) {
        validation.check(command);
        // Locked like join: a delete committed between a plain check and the insert would fail the
        // insert's foreign key, an internal error for what is a missing group
        groups.findLockedById(command.groupId()).orElseThrow(() -> DomainException.notFound("group", command.groupId()));
        Instant start = Timestamps.toStoredPrecision(command.startTime());
        // @Future held for the time as sent; stored to the second, a start under a second ahead would
        // be in the past, and never among the group's next sessions
        if (!start.isAfter(clock.instant())) {
            throw DomainException.invalid("start_time", "must be a future date");
        }
        SessionView scheduled = sessions.saveAndFlush(new StudySession(command.groupId(), command.topic(), start,
                command.durationMinutes(), command.location())).toView();
        // Only the group shows sessions.
        cache.invalidateAfterCommit(GroupCaches.group(command.groupId()));
        return scheduled;
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** The group, the pages that list it and the leaderboards that may rank it. */
    private static Invalidation everythingAbout(StudyGroup group) {
        return GroupCaches.group(group.getId()).and(GroupCaches.pagesOf(group.getSubject()))
                .and(GroupCaches.leaderboardsOf(group.getSubject()));
    }

    /**
     * Hands {@code condition} the group as GetGroup would answer it now, and lets it refuse the write
     * by throwing (nothing has changed yet, and the exception rolls the transaction back). It comes
     * where HTTP puts a precondition (RFC 9110 13.2.1): after the request's own checks and the
     * missing group's NOT_FOUND, before expected_version and the write itself.
     *
     * <p>Why read from the database and not the cache: the condition must judge the state the write
     * would change, and a cache may lag a write made on another instance; under the row lock that
     * every write of a group takes first (joins, leaves, ratings and sessions included), nothing can
     * change the group between this read and the commit. It reads what a cache miss of GetGroup
     * reads, with the same clock, so for a current cache entry (one never outlives the start of a
     * session it lists) the two are equal.
     */
    private void requireCondition(long id, Consumer<GroupView> condition) {
        if (condition != null) {
            condition.accept(queries.findGroup(id, clock.instant())
                    .orElseThrow(() -> DomainException.notFound("group", id)));
        }
    }

    private static void requireVersion(StudyGroup group, long expected) {
        if (group.getVersion() != expected) {
            throw staleVersion(group.getId(), expected);
        }
    }

    private static DomainException staleVersion(long id, long expected) {
        return DomainException.aborted("group", id, "group " + id + " is no longer at version " + expected
                + "; read it again and retry");
    }

    private static DomainException alreadyMember(long groupId, long userId) {
        return DomainException.alreadyExists("membership", groupId + "/" + userId,
                "user " + userId + " is already a member of group " + groupId);
    }

    private static DomainException alreadyRated(long groupId, long userId) {
        return DomainException.alreadyExists("rating", groupId + "/" + userId,
                "user " + userId + " has already rated group " + groupId);
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private Instant now() {
        return Timestamps.toStoredPrecision(clock.instant());
    }
}
