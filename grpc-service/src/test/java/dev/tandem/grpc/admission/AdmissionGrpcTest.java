package dev.tandem.grpc.admission;

import com.google.protobuf.FieldMask;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.RawHttp2Call;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.proto.v1.UpdateGroupRequest;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.RowLock;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.TestPropertySource;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.auth.DevTokens;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerExecutorProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Admission control on gRPC with a limit of one call in flight: while an update waits for a row
 * lock held by the test, another call is refused at once with UNAVAILABLE, RetryInfo and ErrorInfo,
 * health checks are still answered, and once the update is through calls are admitted again. And
 * the refusal is made where the call arrives: it is answered while the call executor runs nothing.
 * Switched on as "on", which Spring binds as true and the admission configuration's condition did
 * not (every API call failed: CanonicalSettings).
 */
@TestPropertySource(properties = {"tandem.admission.enabled=on", "tandem.admission.algorithm=fixed", "tandem.admission.initial-limit=1",
        "tandem.admission.min-limit=1", "tandem.admission.max-limit=1", "tandem.admission.retry-after=3s",
        // a rate limit for one test's own client: the others call as the writer, exempt
        "tandem.rate-limit.enabled=true", "tandem.rate-limit.requests-per-second=0.001", "tandem.rate-limit.burst=3",
        "tandem.rate-limit.exempt-subjects=" + DevTokens.DEV_SUBJECT,
        // short, for the call whose request never arrives; above what any other call here takes on the server
        "tandem.limits.request-timeout=5s"})
class AdmissionGrpcTest extends GrpcIntegrationTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    /** The server's call executor, which a test can hold (open unless a test holds it). */
    @Autowired HoldableCallExecutor callExecutor;
    @Autowired AdmissionControl admission;

    @TestConfiguration(proxyBeanMethods = false)
    static class HoldableExecutorConfiguration {
        /** Puts the service's own call executor behind a hold, before Boot hands it to the server. */
        @Bean
        static BeanPostProcessor holdableCallExecutor() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof GrpcServerExecutorProvider provider ? new HoldableCallExecutor(provider) : bean;
                }
            };
        }
    }

    @Value("${spring.datasource.url}") String url;
    @Value("${spring.datasource.username}") String user;
    @Value("${spring.datasource.password}") String password;

    @Test
    void aCallOverTheLimitIsRefusedWithRetryInfoWhileHealthIsStillAnswered() throws Exception {
        CompletableFuture<Group> update;
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            update = updateHoldingThePermit(lock, "Renamed once admitted");

            StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                    () -> api().getGroup(GetGroupRequest.newBuilder().setId(2).build()));

            assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(refused.getStatus().getDescription()).contains("limit of 1 requests in flight");
            com.google.rpc.Status details = StatusProto.fromThrowable(refused);
            RetryInfo retry = details.getDetailsList().stream().filter(d -> d.is(RetryInfo.class))
                    .findFirst().orElseThrow().unpack(RetryInfo.class);
            assertThat(retry.getRetryDelay().getSeconds()).isEqualTo(3);
            ErrorInfo info = details.getDetailsList().stream().filter(d -> d.is(ErrorInfo.class))
                    .findFirst().orElseThrow().unpack(ErrorInfo.class);
            assertThat(info.getReason()).isEqualTo("UNAVAILABLE");
            assertThat(info.getMetadataMap()).containsEntry("limit", "1");
            // The answer is made once per limit and shared: each refused call must still get it whole.
            StatusRuntimeException again = catchThrowableOfType(StatusRuntimeException.class,
                    () -> api().getGroup(GetGroupRequest.newBuilder().setId(3).build()));
            assertThat(again.getStatus().getDescription()).isEqualTo(refused.getStatus().getDescription());
            assertThat(StatusProto.fromThrowable(again)).as("the same details, once each").isEqualTo(details);

            HealthCheckResponse health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(BOUND.toSeconds(), TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance());
            assertThat(health.getStatus()).as("health is never limited").isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
            assertThat(update).as("the admitted call still waits for the lock").isNotDone();
        }
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS).getName()).isEqualTo("Renamed once admitted");
        // The server sends the response before its call closes and the permit is back: a call made
        // the moment the response arrives may still find the one permit taken (a CI run did).
        awaitInFlight(0);
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId())
                .as("admitted again once the permit is back").isEqualTo(2);
    }

    @Test
    void aRefusalIsAnsweredWhereTheCallArrivesWithoutWaitingForTheCallExecutor() throws Exception {
        CompletableFuture<Group> admitted;
        try (HoldableCallExecutor.Hold ignored = callExecutor.hold()) {
            admitted = CompletableFuture.supplyAsync(() -> api().getGroup(GetGroupRequest.newBuilder().setId(2).build()));
            awaitInFlight(1);

            // Before admission moved to the transport thread, this call queued behind the held
            // executor with the admitted one and ran out of its deadline.
            StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                    () -> api().withDeadlineAfter(BOUND.toSeconds(), TimeUnit.SECONDS)
                            .getGroup(GetGroupRequest.newBuilder().setId(3).build()));

            assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(StatusProto.fromThrowable(refused).getDetailsList()).anyMatch(d -> d.is(RetryInfo.class));
            assertThat(admitted).as("the admitted call waits for the executor").isNotDone();
        }
        assertThat(admitted.get(BOUND.toSeconds(), TimeUnit.SECONDS).getId()).isEqualTo(2);
        awaitInFlight(0);
    }

    @Test
    void aCallThatAnEarlierInterceptorClosesGivesItsPermitBack() throws Exception {
        // The permit is taken where the call arrives, before any interceptor: the metadata limit's
        // refusal must not keep it, or with a limit of one the instance would refuse everything after.
        Metadata filler = new Metadata();
        filler.put(Metadata.Key.of("x-filler", Metadata.ASCII_STRING_MARSHALLER), "a".repeat(16 * 1024));
        StatusRuntimeException tooBig = catchThrowableOfType(StatusRuntimeException.class,
                () -> api().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(filler))
                        .getGroup(GetGroupRequest.newBuilder().setId(2).build()));
        assertThat(tooBig.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

        awaitInFlight(0);
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId()).isEqualTo(2);
    }

    /**
     * A call the service fails by throwing (a missing group, NOT_FOUND) gives its permit back like one
     * it answers. Spring gRPC's exception handler, outermost, closes the call it was given, not the
     * admitted one further in, and the transport then ends the call as complete, not cancelled: before
     * the release on completion every such call kept its permit, and with a limit of one the next call
     * was refused.
     */
    @Test
    void aCallThatFailsGivesItsPermitBack() {
        for (int i = 0; i < 3; i++) {
            StatusRuntimeException missing = catchThrowableOfType(StatusRuntimeException.class,
                    () -> api().getGroup(GetGroupRequest.newBuilder().setId(999_999).build()));
            assertThat(missing.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            awaitInFlight(0);
        }
        assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId())
                .as("admitted after the failed calls").isEqualTo(2);
    }

    /**
     * An admitted call whose deadline passes while it waits for a thread met a limit here (the queue
     * in front of the call executor): a drop, which Vegas shrinks on. It was ignored, as if its client
     * had gone away (failed before: no drop).
     */
    @Test
    void aCallWhoseDeadlinePassesWhileItWaitsForAThreadIsADrop() throws Exception {
        long dropped = admission.ended(AdmissionControl.Ending.DROPPED);
        long ended = endedCalls();
        CompletableFuture<RawHttp2Call.Trailers> late;
        try (HoldableCallExecutor.Hold ignored = callExecutor.hold()) {
            // Sent as frames by hand, which never cancel: a gRPC client cancels at its own deadline,
            // counted from before its headers left, so its RST_STREAM reaches the server ahead of the
            // server's timer by as long as the headers took to be read there; more than
            // DEADLINE_SKEW_MILLIS on a loaded machine, and the call looked like one whose client went
            // away (a CI run saw no drop). Here the server's own deadline alone ends the call.
            late = CompletableFuture.supplyAsync(() -> {
                try {
                    return RawHttp2Call.unary(grpcPort(), "/tandem.v1.StudyGroupService/GetGroup",
                            Map.of("grpc-timeout", "1S", "authorization", "Bearer " + WRITER),
                            GetGroupRequest.newBuilder().setId(2).build().toByteArray());
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            // The permit goes back when the deadline passes; the answer is sent by the call's
            // thread, which the hold keeps from it until the hold ends.
            Await.until("the held call ended", BOUND, () -> endedCalls() > ended);
            awaitInFlight(0);
        }
        assertThat(admission.ended(AdmissionControl.Ending.DROPPED) - dropped).as("calls dropped").isEqualTo(1);
        // Not served, and answered as what ended it (the server's deadline), not as a refusal: by the
        // time the call has a thread its permit went back at its deadline.
        RawHttp2Call.Trailers answer = late.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(answer.grpcStatus()).as("grpc-status of %s", answer.headers())
                .isEqualTo(Status.Code.DEADLINE_EXCEEDED.value());
    }

    /**
     * A call whose request never finishes arriving (its headers and message sent, never END_STREAM)
     * took its permit when its headers arrived; it gives it back at its deadline, here the server's
     * request timeout as it sent no grpc-timeout, and is answered DEADLINE_EXCEEDED. Before, nothing
     * ended such a call: it kept the one permit for as long as its client kept the connection, and
     * every other call was refused. Its end is no sample for the limit (ignored, not a drop): the
     * instance never had the request, so how long it held the permit says nothing about the instance.
     */
    @Test
    void aCallWhoseRequestNeverArrivesGivesItsPermitBackAtItsDeadline() throws Exception {
        long ignoredBefore = admission.ended(AdmissionControl.Ending.IGNORED);
        long droppedBefore = admission.ended(AdmissionControl.Ending.DROPPED);
        try (RawHttp2Call.Unfinished held = RawHttp2Call.unfinished(grpcPort(), "/tandem.v1.StudyGroupService/GetGroup",
                Map.of("authorization", "Bearer " + WRITER), GetGroupRequest.newBuilder().setId(2).build().toByteArray())) {
            awaitInFlight(1);
            StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                    () -> api().getGroup(GetGroupRequest.newBuilder().setId(3).build()));
            assertThat(refused.getStatus().getCode()).as("locked out while the unfinished call holds the permit")
                    .isEqualTo(Status.Code.UNAVAILABLE);

            RawHttp2Call.Trailers answer = held.answer(BOUND);
            assertThat(answer.grpcStatus()).as("grpc-status of %s", answer.headers())
                    .isEqualTo(Status.Code.DEADLINE_EXCEEDED.value());
            awaitInFlight(0);
            assertThat(api().getGroup(GetGroupRequest.newBuilder().setId(3).build()).getId())
                    .as("admitted once the unfinished call's deadline has passed").isEqualTo(3);
        }
        assertThat(admission.ended(AdmissionControl.Ending.IGNORED) - ignoredBefore).as("calls ignored").isEqualTo(1);
        assertThat(admission.ended(AdmissionControl.Ending.DROPPED) - droppedBefore).as("calls dropped").isZero();
    }

    private long endedCalls() {
        long calls = 0;
        for (AdmissionControl.Ending ending : AdmissionControl.Ending.values()) {
            calls += admission.ended(ending);
        }
        return calls;
    }

    /**
     * A call the rate limit refuses (RESOURCE_EXHAUSTED: a limit on the client, not on the instance)
     * is a latency sample for the limit, as on REST, where the rate limit is a filter behind the
     * admission valve. Before, admission was asked after the rate limit, whose refusal then ended the
     * call with its permit unclaimed: no sample (4 calls, 3 samples).
     */
    @Test
    void aCallTheRateLimitRefusesIsSampledAsOnRest() {
        String token = DevTokens.mintFor("rate-limited-" + System.nanoTime(), DevTokens.DEV_SECRET, Duration.ofHours(1));
        var limited = anonymousApi().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(authorization("Bearer " + token)));
        long completed = admission.ended(AdmissionControl.Ending.COMPLETED);
        long ignored = admission.ended(AdmissionControl.Ending.IGNORED);
        for (int i = 0; i < 3; i++) {
            assertThat(limited.getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId()).isEqualTo(2);
            awaitInFlight(0);
        }
        StatusRuntimeException overRate = catchThrowableOfType(StatusRuntimeException.class,
                () -> limited.getGroup(GetGroupRequest.newBuilder().setId(2).build()));
        assertThat(overRate.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        awaitInFlight(0);

        assertThat(admission.ended(AdmissionControl.Ending.COMPLETED) - completed).as("calls sampled").isEqualTo(4);
        assertThat(admission.ended(AdmissionControl.Ending.IGNORED) - ignored).as("calls ignored").isZero();
    }

    /**
     * A call refused at the limit takes nothing from its client's rate: admission is asked before the
     * rate limit, so a client whose calls were refused while the instance was full still has its whole
     * burst (3) once a permit is free, as on REST (AdmissionRestTest).
     */
    @Test
    void aRefusalTakesNothingFromItsClientsRate() throws Exception {
        String token = DevTokens.mintFor("refused-" + System.nanoTime(), DevTokens.DEV_SECRET, Duration.ofHours(1));
        var limited = anonymousApi().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(authorization("Bearer " + token)));
        CompletableFuture<Group> update;
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            update = updateHoldingThePermit(lock, "Renamed once admitted");
            for (int i = 0; i < 3; i++) {
                StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                        () -> limited.getGroup(GetGroupRequest.newBuilder().setId(2).build()));
                assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            }
        }
        assertThat(update.get(BOUND.toSeconds(), TimeUnit.SECONDS).getName()).isEqualTo("Renamed once admitted");
        for (int i = 0; i < 3; i++) {
            awaitInFlight(0);
            assertThat(limited.getGroup(GetGroupRequest.newBuilder().setId(2).build()).getId())
                    .as("call %d of the burst", i + 1).isEqualTo(2);
        }
    }

    /**
     * A call whose client cancels it while it waits in SQL (for a row lock here) is no sample: its
     * client went away, which says nothing of this instance's capacity. The cancel stops the statement
     * (KILL QUERY), whose failure reaches admission as DEADLINE_EXCEEDED before the listener hears of
     * the cancel; it was taken for a call that met its deadline, a drop (Vegas shrinks the limit on
     * drops: any client could shrink it for every other by cancelling its calls). Failed before:
     * dropped +1, ignored +0.
     */
    @Test
    void aCallItsClientCancelsWhileItWaitsInSqlIsNoSample() throws Exception {
        long dropped = admission.ended(AdmissionControl.Ending.DROPPED);
        long ignored = admission.ended(AdmissionControl.Ending.IGNORED);
        long completed = admission.ended(AdmissionControl.Ending.COMPLETED);
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        Context.CancellableContext client = Context.current().withCancellation();
        try (RowLock lock = RowLock.studyGroup(url, user, password, 1)) {
            CompletableFuture<Group> update = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.call(() -> api().updateGroup(UpdateGroupRequest.newBuilder()
                            .setId(1).setGroup(Group.newBuilder().setName("Renamed, then given up"))
                            .setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                            .setExpectedVersion(version).build()));
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            assertThat(lock.awaitStatementOnStudyGroups(BOUND)).as("the update waits for the row lock").isTrue();
            client.cancel(null);
            ExecutionException given = catchThrowableOfType(ExecutionException.class,
                    () -> update.get(BOUND.toSeconds(), TimeUnit.SECONDS));
            assertThat(Status.fromThrowable(given).getCode()).isEqualTo(Status.Code.CANCELLED);
            // The lock is still held: only the cancel can have ended the call.
            awaitInFlight(0);
        }
        assertThat(admission.ended(AdmissionControl.Ending.DROPPED) - dropped).as("calls dropped").isZero();
        assertThat(admission.ended(AdmissionControl.Ending.IGNORED) - ignored).as("calls ignored").isEqualTo(1);
        assertThat(admission.ended(AdmissionControl.Ending.COMPLETED) - completed).as("calls sampled").isZero();
    }

    /**
     * An update of group 1 (renamed {@code name}) that holds the one permit: admitted, it waits for
     * the row lock {@code lock} holds. Its answer, once the lock is gone.
     */
    private CompletableFuture<Group> updateHoldingThePermit(RowLock lock, String name) {
        long version = jdbc.sql("SELECT version FROM study_groups WHERE id = 1").query(Long.class).single();
        CompletableFuture<Group> update = CompletableFuture.supplyAsync(() -> api().updateGroup(UpdateGroupRequest.newBuilder()
                .setId(1).setGroup(Group.newBuilder().setName(name))
                .setUpdateMask(FieldMask.newBuilder().addPaths("name"))
                .setExpectedVersion(version).build()));
        assertThat(lock.awaitStatementOnStudyGroups(BOUND)).as("the update holds the only permit").isTrue();
        return update;
    }

    private void awaitInFlight(int calls) {
        Await.until(calls + " calls in flight", BOUND, () -> admission.inFlight() == calls);
    }

    /** The service's call executor, which a test can hold: work handed over meanwhile waits. */
    static final class HoldableCallExecutor implements GrpcServerExecutorProvider, AutoCloseable {

        private final GrpcServerExecutorProvider service;
        private volatile CountDownLatch held = new CountDownLatch(0);

        HoldableCallExecutor(GrpcServerExecutorProvider service) {
            this.service = service;
        }

        @Override
        public void close() throws Exception {
            if (service instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }

        @Override
        public Executor getExecutor() {
            Executor threads = service.getExecutor();
            return task -> {
                CountDownLatch gate = held;
                threads.execute(() -> {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    task.run();
                });
            };
        }

        interface Hold extends AutoCloseable {
            @Override
            void close();
        }

        /** Work handed over from now on waits until the hold is closed. */
        Hold hold() {
            CountDownLatch gate = new CountDownLatch(1);
            held = gate;
            return () -> {
                held = new CountDownLatch(0);
                gate.countDown();
            };
        }
    }
}
