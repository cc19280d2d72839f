package dev.tandem.group;

import com.google.protobuf.UnknownFieldSet;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.error.FieldViolation;
import dev.tandem.proto.internal.PageToken;
import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.Concurrently;
import dev.tandem.testsupport.PausingStatementInspector;
import dev.tandem.testsupport.UseTestDatabase;
import dev.tandem.user.NewUser;
import dev.tandem.user.UserService;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@SpringBootTest(properties = "spring.jpa.properties.hibernate.session_factory.statement_inspector="
        + "dev.tandem.testsupport.PausingStatementInspector")
@UseTestDatabase
class GroupServiceTest {

    /** Not a timing assertion: how long a held thread waits before going on by itself. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Autowired GroupService groups;
    @Autowired UserService users;
    @Autowired SeedData seed;
    @Autowired JdbcClient jdbc;
    @Autowired jakarta.validation.Validator validator;

    @BeforeEach
    void freshData() {
        seed.reset(1);
    }

    @Test
    void createdGroupReadsBackWithOwnerAsFirstMember() {
        long owner = newUser("owner");
        GroupView created = groups.create(new NewGroup("Graph theory", "algorithms", "Cliques", 10, owner));

        assertThat(created.memberCount()).isEqualTo(1);
        assertThat(created.ownerName()).isEqualTo("owner");
        assertThat(created.version()).isEqualTo(StudyGroup.FIRST_VERSION);
        assertThat(created.averageRating()).isZero();
        assertThat(created.nextSessions()).isEmpty();
        assertThat(groups.get(created.id())).isEqualTo(created);
    }

    @Test
    void invalidGroupNamesEveryBadFieldAndWritesNothing() {
        long before = count("study_groups");
        assertThatThrownBy(() -> groups.create(new NewGroup("x", "Not A Subject", "d".repeat(1001), 1, 1)))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.violations()).extracting(FieldViolation::field)
                            .containsExactlyInAnyOrder("name", "subject", "description", "capacity");
                });
        assertThat(count("study_groups")).isEqualTo(before);
    }

    /**
     * Lengths count characters, as the utf8mb4 columns do: a name of 100 emoji (200 UTF-16 units)
     * and a description of 1,000 are stored and read back whole, a name of 101 is refused. Failed
     * before: {@code @Size} counted UTF-16 units and refused the first.
     */
    @Test
    void lengthsCountCharactersAsTheColumnsDo() {
        long owner = newUser("owner");
        String books = "\uD83D\uDCDA";
        GroupView created = groups.create(new NewGroup(books.repeat(100), "algorithms", books.repeat(1000), 10, owner));
        assertThat(jdbc.sql("SELECT name, description FROM study_groups WHERE id = ?").param(created.id())
                .query((row, n) -> List.of(row.getString(1), row.getString(2))).single())
                .containsExactly(books.repeat(100), books.repeat(1000));
        assertThatThrownBy(() -> groups.create(new NewGroup(books.repeat(101), "algorithms", "", 10, owner)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .extracting(FieldViolation::field).containsExactly("name"));
    }

    @Test
    void unknownOwnerIsNotFoundAndWritesNothing() {
        long before = count("study_groups");
        assertThatThrownBy(() -> groups.create(new NewGroup("Graph theory", "algorithms", "", 10, 999_999)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(count("study_groups")).isEqualTo(before);
    }

    /**
     * A session scheduled while its group is deleted: the schedule holds the group's row from its
     * check to its insert, as join, leave and rate do, so the delete waits for it (and takes the
     * session with the group). Before, the check was a plain read: the delete committed between it
     * and the insert, whose foreign key then failed as an internal error (REST 500, gRPC INTERNAL).
     */
    @Test
    void aSessionScheduledWhileItsGroupIsDeletedIsNeverAnInternalError() throws Exception {
        long owner = newUser("owner");
        GroupView group = groups.create(new NewGroup("Short-lived group", "physics", "", 10, owner));
        PausingStatementInspector.Pause beforeTheInsert = new PausingStatementInspector.Pause("study_sessions", PATIENCE);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<SessionView> scheduling = pool.submit(() -> {
                beforeTheInsert.armForThisThread();
                try {
                    return groups.schedule(new NewSession(group.id(), "Exam prep", Instant.now().plus(1, ChronoUnit.DAYS), 60, ""));
                } finally {
                    beforeTheInsert.disarmForThisThread();
                }
            });
            assertThat(beforeTheInsert.awaitReached(PATIENCE)).as("the schedule reached its insert").isTrue();
            Future<?> deleting = pool.submit(() -> groups.delete(group.id(), 0));
            // the delete's chance to commit in between, which it takes unless the schedule holds the row
            Await.within(Duration.ofSeconds(2), deleting::isDone);
            beforeTheInsert.release();

            SessionView scheduled = scheduling.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            deleting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(scheduled.groupId()).isEqualTo(group.id());
        }
        assertThat(jdbc.sql("SELECT COUNT(*) FROM study_sessions WHERE group_id = ?").param(group.id())
                .query(Long.class).single()).as("the session went with its group").isZero();
        assertThatThrownBy(() -> groups.get(group.id()))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void concurrentJoinsNeverExceedCapacity() throws Exception {
        long owner = newUser("owner");
        GroupView group = groups.create(new NewGroup("Small group", "physics", "", 5, owner));
        List<Long> joiners = IntStream.range(0, 16).mapToObj(i -> newUser("joiner" + i)).toList();

        List<Callable<MembershipView>> tasks = joiners.stream()
                .<Callable<MembershipView>>map(user -> () -> groups.join(group.id(), user)).toList();
        List<Object> outcomes = Concurrently.run(tasks);

        long joined = outcomes.stream().filter(MembershipView.class::isInstance).count();
        assertThat(joined).isEqualTo(4);
        assertThat(outcomes).filteredOn(o -> !(o instanceof MembershipView))
                .allSatisfy(o -> assertThat(((DomainException) o).code()).isEqualTo(ErrorCode.FAILED_PRECONDITION));
        assertThat(groups.get(group.id()).memberCount()).isEqualTo(5);
    }

    @Test
    void concurrentDuplicateJoinsMakeOneMembership() throws Exception {
        long owner = newUser("owner");
        long user = newUser("twice");
        GroupView group = groups.create(new NewGroup("Busy group", "physics", "", 50, owner));

        List<Callable<MembershipView>> tasks = IntStream.range(0, 8)
                .<Callable<MembershipView>>mapToObj(i -> () -> groups.join(group.id(), user)).toList();
        List<Object> outcomes = Concurrently.run(tasks);

        assertThat(outcomes).filteredOn(MembershipView.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(o -> !(o instanceof MembershipView))
                .allSatisfy(o -> assertThat(((DomainException) o).code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
        assertThat(groups.get(group.id()).memberCount()).isEqualTo(2);
    }

    @Test
    void concurrentLeavesOfOneMemberLeaveOnceAndTheRestAreNotFound() throws Exception {
        long owner = newUser("owner");
        long user = newUser("leaver");
        GroupView group = groups.create(new NewGroup("Leaky group", "physics", "", 50, owner));
        groups.join(group.id(), user);

        List<Callable<Boolean>> tasks = IntStream.range(0, 8).<Callable<Boolean>>mapToObj(i -> () -> {
            groups.leave(group.id(), user);
            return true;
        }).toList();
        List<Object> outcomes = Concurrently.run(tasks);

        assertThat(outcomes).filteredOn(Boolean.TRUE::equals).hasSize(1);
        assertThat(outcomes).filteredOn(o -> !Boolean.TRUE.equals(o))
                .allSatisfy(o -> assertThat(((DomainException) o).code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(groups.get(group.id()).memberCount()).isEqualTo(1);
    }

    @Test
    void secondRatingBySameUserIsAConflictNotARow() throws Exception {
        long user = newUser("rater");
        List<Callable<RatingView>> tasks = IntStream.range(0, 6)
                .<Callable<RatingView>>mapToObj(i -> () -> groups.rate(new NewRating(1, user, 1 + i % 5, ""))).toList();
        List<Object> outcomes = Concurrently.run(tasks);

        assertThat(outcomes).filteredOn(RatingView.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(o -> !(o instanceof RatingView))
                .allSatisfy(o -> assertThat(((DomainException) o).code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
        assertThat(jdbc.sql("SELECT COUNT(*) FROM ratings WHERE group_id = 1 AND user_id = ?").param(user)
                .query(Long.class).single()).isEqualTo(1);
    }

    @Test
    void staleVersionIsAbortedAndTheWinnerKeepsTheRow() throws Exception {
        GroupView group = groups.get(1);
        List<Callable<GroupView>> tasks = IntStream.range(0, 6).<Callable<GroupView>>mapToObj(i -> () -> groups.update(
                new GroupChanges(group.id(), new GroupFields("Renamed by " + i, null, null, 0), Set.of("name"),
                        group.version()))).toList();
        List<Object> outcomes = Concurrently.run(tasks);

        List<GroupView> winners = outcomes.stream().filter(GroupView.class::isInstance).map(GroupView.class::cast).toList();
        assertThat(winners).hasSize(1);
        assertThat(outcomes).filteredOn(o -> !(o instanceof GroupView))
                .allSatisfy(o -> assertThat(((DomainException) o).code()).isEqualTo(ErrorCode.ABORTED));
        GroupView now = groups.get(group.id());
        assertThat(now.name()).isEqualTo(winners.getFirst().name());
        assertThat(now.version()).isEqualTo(group.version() + 1);

        assertThatThrownBy(() -> groups.update(new GroupChanges(group.id(),
                new GroupFields("Late", null, null, 0), Set.of("name"), group.version())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ABORTED));
        assertThat(groups.get(group.id()).name()).isEqualTo(winners.getFirst().name());
    }

    /**
     * The version counts changes, not requests: an update that sets a field to the value it holds
     * changes nothing, so the version stays (and with it the ETag, a hash of the content), and the
     * same expected version still holds for the next update. (README's error table said every
     * update adds one; a review found this.)
     */
    @Test
    void anUpdateThatChangesNothingKeepsTheVersion() {
        GroupView before = groups.get(2);
        GroupView same = groups.update(new GroupChanges(2, new GroupFields(null, null, null, before.capacity()),
                Set.of("capacity"), before.version()));
        assertThat(same).isEqualTo(before);
        GroupView changed = groups.update(new GroupChanges(2, new GroupFields(null, null, null, before.capacity() + 1),
                Set.of("capacity"), before.version()));
        assertThat(changed.version()).isEqualTo(before.version() + 1);
    }

    @Test
    void updateAppliesOnlyMaskedFieldsAndValidatesThem() {
        GroupView before = groups.get(2);
        GroupView after = groups.update(new GroupChanges(2, new GroupFields("ignored", "ignored", "New text", 1),
                Set.of("description"), before.version()));
        assertThat(after.description()).isEqualTo("New text");
        assertThat(after.name()).isEqualTo(before.name());
        assertThat(after.capacity()).isEqualTo(before.capacity());

        assertThatThrownBy(() -> groups.update(new GroupChanges(2, new GroupFields(null, null, null, 1),
                Set.of("capacity"), after.version())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .extracting(FieldViolation::field).containsExactly("group.capacity"));
        assertThatThrownBy(() -> groups.update(new GroupChanges(2, new GroupFields(null, null, null, 0),
                Set.of("owner_id"), after.version())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .extracting(FieldViolation::field).containsExactly("update_mask"));
        // The paths named in the message's order, the same in every JVM: both services word it alike
        // (a Set.of named them in an order that changed from one JVM to the next).
        assertThatThrownBy(() -> groups.update(new GroupChanges(2, new GroupFields(null, null, null, 0),
                Set.of(), after.version())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .extracting(FieldViolation::description)
                        .containsExactly("must name at least one of [name, subject, description, capacity]"));
        assertThat(groups.get(2)).isEqualTo(after);
    }

    /**
     * A masked value the update could never apply is the client's mistake whatever the group's state:
     * INVALID_ARGUMENT before the version is compared or the group looked up, as for every other
     * request field. Failed before: ABORTED for a stale version (the client re-reads, retries and is
     * refused again) and NOT_FOUND for an unknown group.
     */
    @Test
    void anInvalidMaskedValueIsRefusedBeforeTheVersionOrTheGroupIsLookedAt() {
        GroupView group = groups.get(2);
        for (GroupChanges invalid : List.of(
                new GroupChanges(2, new GroupFields(null, null, null, 1), Set.of("capacity"), group.version() + 7),
                new GroupChanges(2, new GroupFields("x", "Not A Subject", null, 0), Set.of("name", "subject"), group.version()),
                new GroupChanges(Long.MAX_VALUE, new GroupFields(null, null, null, 501), Set.of("capacity"), 1))) {
            assertThatThrownBy(() -> groups.update(invalid))
                    .isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                        assertThat(e.violations()).extracting(FieldViolation::field)
                                .allSatisfy(field -> assertThat(invalid.paths()).contains(field.substring("group.".length())));
                    });
        }
        assertThat(groups.get(2)).isEqualTo(group);
    }

    /**
     * UpdateGroup validates only the values its mask names (the others are stored, valid ones), which
     * holds while every rule of GroupFields is one field's own: a rule across fields (a class-level
     * constraint) would go unchecked on update, and this fails first.
     */
    @Test
    void everyRuleOfAGroupsFieldsIsOneFieldsOwn() {
        assertThat(validator.getConstraintsForClass(GroupFields.class).getConstraintDescriptors()).isEmpty();
        assertThat(validator.getConstraintsForClass(GroupFields.class).getConstrainedProperties())
                .extracting(jakarta.validation.metadata.PropertyDescriptor::getPropertyName)
                .containsExactlyInAnyOrder("name", "subject", "description", "capacity");
    }

    /**
     * A mask of many long paths is refused in one violation of bounded size: one per path, each
     * echoed whole, made the error as large as the request (failed before: 100 violations).
     */
    @Test
    void aMaskOfManyUnknownPathsIsRefusedInOneShortViolation() {
        GroupView group = groups.get(2);
        Set<String> paths = new HashSet<>(Set.of("name"));
        for (int i = 0; i < 100; i++) {
            paths.add("p" + i + "x".repeat(5_000));
        }
        assertThatThrownBy(() -> groups.update(new GroupChanges(2, new GroupFields("Renamed", null, null, 0), paths, group.version())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations()).singleElement().satisfies(v -> {
                    assertThat(v.field()).isEqualTo("update_mask");
                    assertThat(v.description()).startsWith("'p0" + "x".repeat(38) + "...', 'p10").contains(" and 97 more cannot be updated")
                            .hasSizeLessThan(300);
                }));
        assertThat(groups.get(2)).isEqualTo(group);
    }

    /**
     * A path is cut short between characters, never inside one: cut at 40 UTF-16 units, an emoji
     * there lost its second half, and the error carried a lone surrogate, which UTF-8 cannot encode
     * (protobuf writes '?' in its place, Jackson escapes it).
     */
    @Test
    void aPathCutShortKeepsItsLastCharacterWhole() {
        GroupView group = groups.get(2);
        String emoji = "\uD83D\uDE00";
        String path = "p" + "x".repeat(38) + emoji + "y".repeat(10);   // the emoji is the 40th character
        assertThatThrownBy(() -> groups.update(new GroupChanges(2, new GroupFields("Renamed", null, null, 0),
                Set.of("name", path), group.version())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations()).singleElement()
                        .satisfies(v -> assertThat(v.description()).startsWith("'p" + "x".repeat(38) + emoji + "...'")));
    }

    @Test
    void capacityCannotDropBelowMembers() {
        long id = jdbc.sql("SELECT group_id FROM group_members GROUP BY group_id HAVING COUNT(*) >= 3 ORDER BY group_id LIMIT 1")
                .query(Long.class).single();
        GroupView group = groups.get(id);
        assertThatThrownBy(() -> groups.update(new GroupChanges(id, new GroupFields(null, null, null, 2),
                Set.of("capacity"), group.version())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION));
        assertThat(groups.get(id)).isEqualTo(group);
    }

    @Test
    void deleteRemovesTheGroupWithItsRowsAndHonoursVersion() {
        GroupView group = groups.get(4);
        assertThatThrownBy(() -> groups.delete(4, group.version() + 7))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ABORTED));
        assertThat(groups.get(4)).isEqualTo(group);

        groups.delete(4, group.version());
        assertThatThrownBy(() -> groups.get(4))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(jdbc.sql("SELECT COUNT(*) FROM group_members WHERE group_id = 4").query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM ratings WHERE group_id = 4").query(Long.class).single()).isZero();
    }

    /**
     * Versions start at 1, so the 0 that DeleteGroup reads as "whatever the version" is never a
     * version a client read, and a delete sent with the version read before someone else's change
     * is ABORTED. Failed before: a new group was at version 0, so a client that had read it there
     * and sent expected_version 0 deleted it after another's rename ("Expecting code to raise a
     * throwable").
     */
    @Test
    void aDeleteWithTheVersionReadBeforeAnotherChangeIsAbortedFromTheFirstVersionOn() {
        long owner = newUser("owner");
        GroupView read = groups.create(new NewGroup("Versioned", "history", "", 10, owner));
        assertThat(read.version()).as("a new group's version").isEqualTo(1);

        groups.update(new GroupChanges(read.id(), new GroupFields("Renamed", null, null, 0), Set.of("name"), read.version()));

        assertThatThrownBy(() -> groups.delete(read.id(), read.version()))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ABORTED));
        assertThat(groups.get(read.id()).name()).isEqualTo("Renamed");
    }

    @Test
    void ownerCannotLeaveButMembersCan() {
        long owner = newUser("owner");
        long member = newUser("member");
        GroupView group = groups.create(new NewGroup("Leaving", "history", "", 10, owner));
        groups.join(group.id(), member);

        assertThatThrownBy(() -> groups.leave(group.id(), owner))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION));
        groups.leave(group.id(), member);
        assertThat(groups.get(group.id()).memberCount()).isEqualTo(1);
        assertThatThrownBy(() -> groups.leave(group.id(), member))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    /** Stored to the second, a start later in this second would be stored in the past. */
    @Test
    void aStartThatStoringToTheSecondWouldPutInThePastIsRefused() {
        long owner = newUser("owner");
        GroupView group = groups.create(new NewGroup("Too soon", "biology", "", 10, owner));
        Instant laterThisSecond = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusNanos(999_999_999);
        assertThatThrownBy(() -> groups.schedule(new NewSession(group.id(), "In a moment", laterThisSecond, 60, "")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations()).extracting(FieldViolation::field)
                        .containsExactly("start_time"));
        assertThat(jdbc.sql("SELECT COUNT(*) FROM study_sessions WHERE group_id = ?").param(group.id())
                .query(Long.class).single()).isZero();
    }

    @Test
    void scheduledSessionsShowAsTheNextThree() {
        Instant base = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        long owner = newUser("owner");
        GroupView group = groups.create(new NewGroup("Sessions", "biology", "", 10, owner));
        List<SessionView> scheduled = new ArrayList<>();
        for (int i = 3; i >= 0; i--) {
            scheduled.add(groups.schedule(new NewSession(group.id(), "Topic " + i, base.plus(i, ChronoUnit.HOURS), 60, null)));
        }
        assertThat(groups.get(group.id()).nextSessions()).extracting(SessionView::topic)
                .containsExactly("Topic 0", "Topic 1", "Topic 2");
        assertThat(groups.get(group.id()).nextSessions().getFirst()).isEqualTo(scheduled.getLast());

        assertThatThrownBy(() -> groups.schedule(new NewSession(group.id(), "", Instant.now().minusSeconds(60), 5, "")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations()).extracting(FieldViolation::field)
                        .containsExactlyInAnyOrder("topic", "start_time", "duration_minutes"));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 1000})
    void walkingPagesReturnsEveryGroupOfASubjectOnceInOrder(int pageSize) {
        for (String subject : List.of("physics", "")) {
            List<Long> expected = jdbc.sql("SELECT id FROM study_groups WHERE ? = '' OR subject = ? ORDER BY id")
                    .params(subject, subject).query(Long.class).list();
            List<Long> seen = new ArrayList<>();
            String token = "";
            int pages = 0;
            do {
                GroupPage page = groups.list(subject, pageSize, token);
                assertThat(page.groups().size()).isLessThanOrEqualTo(pageSize);
                page.groups().forEach(g -> seen.add(g.id()));
                token = page.nextPageToken();
                assertThat(++pages).isLessThanOrEqualTo(expected.size() + 1);
            } while (!token.isEmpty());
            assertThat(seen).containsExactlyElementsOf(expected);
            assertThat(new HashSet<>(seen)).hasSameSizeAs(seen);
        }
    }

    @Test
    void searchRowsAgreeWithTheGroupReadModel() {
        for (GroupSummary row : groups.list("chemistry", 1000, "").groups()) {
            GroupView group = groups.get(row.id());
            assertThat(row).isEqualTo(new GroupSummary(group.id(), group.name(), group.subject(), group.capacity(),
                    group.memberCount(), group.averageRating()));
        }
    }

    /**
     * Every way a page token can be other than one this service issued for this subject; here once,
     * where PageTokens lives: the wires' hostile tables keep only what their transport does to a
     * token (REST's request line, gRPC's message limit).
     */
    @Test
    void foreignAndMalformedTokensAreInvalidArguments() {
        String physicsToken = groups.list("physics", 1, "").nextPageToken();
        assertThat(physicsToken).isNotEmpty();
        byte[] withUnknownField = PageToken.newBuilder().setSubject("physics").setAfterId(5).build().toBuilder()
                .setUnknownFields(UnknownFieldSet.newBuilder()
                        .addField(15, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build())
                .build().toByteArray();
        byte[] randomBytes = new byte[48];
        new Random(48).nextBytes(randomBytes); // seeded, so that a failure can be replayed
        Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
        for (String[] bad : new String[][]{{"history", physicsToken}, {"", physicsToken},
                {"biology", PageTokens.encode("", 5)}, {"physics", PageTokens.encode("physics", -1)},
                {"physics", PageTokens.encode("physics", 0)}, {"physics", base64.encodeToString(withUnknownField)},
                {"physics", "not-a-token!"}, {"physics", "AAAA"}, {"physics", "%%%"},
                {"physics", base64.encodeToString(randomBytes)},
                {"physics", base64.encodeToString("{\"after_id\": 5}".getBytes(StandardCharsets.UTF_8))},
                {"physics", "A".repeat(4096)}}) {
            assertThatThrownBy(() -> groups.list(bad[0], 1, bad[1]), "%s under '%s'", bad[1], bad[0])
                    .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                            .extracting(FieldViolation::field).containsExactly("page_token"));
        }
        assertThatThrownBy(() -> groups.list("history", 1, physicsToken))
                .hasMessageContaining("issued for a different subject");
        for (int size : new int[]{-1, 1001}) {
            assertThatThrownBy(() -> groups.list("physics", size, ""))
                    .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                            .extracting(FieldViolation::field).containsExactly("page_size"));
        }
    }

    @Test
    void leaderboardIsBestRatedFirst() {
        LeaderboardView board = groups.leaderboard("", 0);
        assertThat(board.groups()).hasSize(GroupService.DEFAULT_LEADERBOARD_LIMIT);
        List<Double> averages = board.groups().stream().map(GroupSummary::averageRating).toList();
        assertThat(averages).isSortedAccordingTo((a, b) -> Double.compare(b, a));
        assertThat(groups.leaderboard("physics", 100).groups()).allSatisfy(g -> assertThat(g.subject()).isEqualTo("physics"));
        assertThatThrownBy(() -> groups.leaderboard("", 101)).isInstanceOf(DomainException.class);
        // Every bad field named at once, as ListGroups does (the limit alone was, before).
        assertThatThrownBy(() -> groups.leaderboard("Physics", -1))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.violations())
                        .extracting(FieldViolation::field).containsExactly("limit", "subject"));
    }

    private long newUser(String name) {
        return users.create(new NewUser(name, name + "-" + System.nanoTime() + "@example.test")).id();
    }

    private long count(String table) {
        return jdbc.sql("SELECT COUNT(*) FROM " + table).query(Long.class).single();
    }
}
