package dev.tandem.grpc.deadline;

import dev.tandem.testsupport.SeededRows;
import dev.tandem.deadline.RequestDeadlines;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.RawHttp2Call;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.JoinGroupRequest;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.testsupport.RowLock;
import com.google.protobuf.FieldMask;
import com.google.rpc.ErrorInfo;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A gRPC deadline (or a cancellation) cuts the database work short: a write waiting for a row lock
 * held by the test's own connection fails with DEADLINE_EXCEEDED, its statement is gone from
 * MariaDB's process list within a bound far below innodb_lock_wait_timeout (50 s) and the server's
 * own request timeout, and once the lock is released the write turns out not to have been applied.
 */
class CallDeadlineGrpcTest extends GrpcIntegrationTest {

    private static final Duration GONE_WITHIN = Duration.ofSeconds(5);

    /**
     * The calls' deadline: long enough that on a loaded machine the call's statement is seen waiting
     * for the lock before it passes, short enough to keep the test quick.
     */
    private static final long DEADLINE_MS = 2000;
    /**
     * Seen waiting, then gone while the test still holds the lock: only a KILL ends a lock wait that
     * early. (Until this, a rise in the server's Com_kill stood for that; it counts every database's
     * KILLs, so another test lane's could have made the assertion pass on its own.)
     */
    private static final String RUNNING_WHEN_CUT = "the call's statement waits for the lock before the deadline";

    @Value("${spring.datasource.url}") String url;
    @Value("${spring.datasource.username}") String user;
    @Value("${spring.datasource.password}") String password;
    @Autowired RequestDeadlines deadlines;

    @Test
    void joinWaitingForALockedGroupIsCutShortByTheCallDeadline() throws Exception {
        assertThat(deadlines.requestTimeout()).as("the server's own cap must not be what cuts the statement")
                .isGreaterThan(GONE_WITHIN);
        long groupId = SeededRows.groupWithRoom(jdbc);
        long userId = SeededRows.nonMember(jdbc, groupId);
        var rows = SeededRows.database(jdbc);
        try (RowLock lock = RowLock.studyGroup(url, user, password, groupId)) {
            CompletableFuture<?> join = CompletableFuture.supplyAsync(() ->
                    api().withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS).joinGroup(JoinGroupRequest.newBuilder()
                            .setGroupId(groupId).setUserId(userId).build()));
            assertThat(lock.awaitLockingReadOfStudyGroups(Duration.ofMillis(DEADLINE_MS))).as(RUNNING_WHEN_CUT).isTrue();

            assertThat(failureOf(join).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            assertThat(lock.awaitNoStatementOnStudyGroups(GONE_WITHIN))
                    .as("the service's SELECT ... FOR UPDATE is no longer waiting for the lock").isTrue();
        }
        assertThat(SeededRows.isMember(jdbc, groupId, userId)).as("the join past its deadline was not applied").isFalse();
        assertThat(SeededRows.database(jdbc)).isEqualTo(rows);
    }

    @Test
    void updateWaitingForALockedGroupIsCutShortByTheCallDeadline() throws Exception {
        Map<String, Object> before = SeededRows.groupRow(jdbc, 1);
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            CompletableFuture<?> update = CompletableFuture.supplyAsync(() ->
                    api().withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS).updateGroup(UpdateGroupRequest.newBuilder()
                            .setId(1).setGroup(Group.newBuilder().setName("Renamed under a lock"))
                            .setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                            .setExpectedVersion(((Number) before.get("version")).longValue()).build()));
            assertThat(lock.awaitLockingReadOfStudyGroups(Duration.ofMillis(DEADLINE_MS))).as(RUNNING_WHEN_CUT).isTrue();

            assertThat(failureOf(update).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            assertThat(lock.awaitNoStatementOnStudyGroups(GONE_WITHIN)).isTrue();
        }
        assertThat(SeededRows.groupRow(jdbc, 1)).as("the update past its deadline was rolled back").isEqualTo(before);
    }

    @Test
    void aCancelledCallStopsItsStatementAtOnce() throws Exception {
        long groupId = SeededRows.groupWithRoom(jdbc);
        long userId = SeededRows.nonMember(jdbc, groupId);
        try (RowLock lock = RowLock.studyGroup(url, user, password, groupId)) {
            Context.CancellableContext call = Context.current().withCancellation();
            CompletableFuture<Object> join = CompletableFuture.supplyAsync(() -> {
                Context previous = call.attach();
                try {
                    return api().joinGroup(JoinGroupRequest.newBuilder().setGroupId(groupId).setUserId(userId).build());
                } finally {
                    call.detach(previous);
                }
            });
            // The call has the base class's long deadline: it is certainly waiting for the lock now.
            assertThat(lock.awaitStatementOnStudyGroups(Duration.ofSeconds(30))).as("the join reached the lock").isTrue();

            call.cancel(null);

            assertThat(failureOf(join).getCode()).isEqualTo(Status.Code.CANCELLED);
            assertThat(lock.awaitNoStatementOnStudyGroups(GONE_WITHIN))
                    .as("the cancelled call's statement was killed, not left waiting for the lock").isTrue();
        }
        assertThat(SeededRows.isMember(jdbc, groupId, userId)).as("the cancelled join was not applied").isFalse();
    }

    @Test
    void aDeadlineThatPassesBeforeTheHandlerRunsChangesNothing() {
        long groupId = SeededRows.groupWithRoom(jdbc);
        long userId = SeededRows.nonMember(jdbc, groupId);
        var rows = SeededRows.database(jdbc);

        // Expired on arrival: grpc-java may notice first on the client, or the server's interceptor
        // refuses to start the handler; either way DEADLINE_EXCEEDED and nothing written.
        StatusRuntimeException failure = catchThrowableOfType(StatusRuntimeException.class, () ->
                api().withDeadlineAfter(1, TimeUnit.MICROSECONDS).joinGroup(JoinGroupRequest.newBuilder()
                        .setGroupId(groupId).setUserId(userId).build()));

        assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(SeededRows.isMember(jdbc, groupId, userId)).isFalse();
        assertThat(SeededRows.database(jdbc)).isEqualTo(rows);
    }

    /**
     * A call whose request never finishes arriving (HEADERS and the whole message, never END_STREAM)
     * and that carries no grpc-timeout is ended at the server's own request timeout, DEADLINE_EXCEEDED
     * with the ErrorInfo every other DEADLINE_EXCEEDED has. grpc-java itself bounds a call only by
     * the client's grpc-timeout, and the service's deadline bounded SQL only: before, the call was
     * still open when the test gave up (no answer at all), holding its stream (and, with admission
     * control on, a permit) for as long as the client kept the connection.
     *
     * <p>It waits the default 10 s: this context is every gRPC test's, whose other tests need the
     * default (the first two here need it above {@link #GONE_WITHIN}), and a context of its own would
     * cost as long to start.
     */
    @Test
    void aCallWhoseRequestNeverFinishesArrivingEndsAtTheRequestTimeout() throws Exception {
        Duration timeout = deadlines.requestTimeout();
        long sent = System.nanoTime();
        try (RawHttp2Call.Unfinished call = RawHttp2Call.unfinished(grpcPort(), "/tandem.v1.StudyGroupService/GetGroup",
                Map.of(), GetGroupRequest.newBuilder().setId(1).build().toByteArray())) {
            RawHttp2Call.Trailers answer = call.answer(timeout.plusSeconds(20));
            Duration after = Duration.ofNanos(System.nanoTime() - sent);

            assertThat(answer.grpcStatus()).as("grpc-status of %s", answer.headers())
                    .isEqualTo(Status.Code.DEADLINE_EXCEEDED.value());
            ErrorInfo info = answer.errorInfo();
            assertThat(info.getReason()).isEqualTo("DEADLINE_EXCEEDED");
            assertThat(info.getDomain()).isEqualTo("tandem.dev");
            assertThat(after).as("ended by the request timeout, not before").isGreaterThanOrEqualTo(timeout);
        }
    }

    /** How a call made in the background failed (it must fail, within 30 s). */
    private static Status failureOf(CompletableFuture<?> call) {
        return Status.fromThrowable(catchThrowableOfType(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS)).getCause());
    }
}
