package dev.tandem.grpc.group;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.tandem.auth.DevTokens;
import dev.tandem.group.watch.GroupWatch;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.RawHttp2Call;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.proto.v1.WatchGroupRequest;
import dev.tandem.proto.v1.WatchGroupResponse;
import dev.tandem.testsupport.Await;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * WatchGroup on the gRPC wire: what only a server stream shows (flow control: a client that takes
 * nothing; cancellation) and the watcher limits, which need GrpcIntegrationTest's small ones (at
 * most 4 watches and 3 per client; heartbeat 500 ms). What both wires promise alike (the first
 * state, changes, resume, deletion ending with OK, heartbeats, NOT_FOUND, a bad since) is a row
 * of the system tests' WatchScenarios, run on both; the watch rule itself is GroupWatchTest's. The
 * channel's calls without a token are all one client, 127.0.0.1.
 */
class WatchGroupGrpcTest extends GrpcIntegrationTest {

    private static final long GROUP = 1;

    @Autowired GroupWatch watch;
    @Value("${tandem.watch.max-watchers}") int maxWatchers;
    @Value("${tandem.watch.max-watchers-per-client}") int maxWatchersPerClient;

    private final List<Stream> streams = new ArrayList<>();

    @AfterEach
    void cancelStreams() {
        streams.forEach(s -> s.call.cancel("test over", null));
        Await.until("every watch to be released", java.time.Duration.ofSeconds(10), () -> watch.watching() == 0);
    }

    /** The instance's places taken by two clients, each under its own cap: a third is refused. */
    @Test
    void watchesBeyondTheLimitAreRefusedWithResourceExhaustedAndRetryInfo() {
        for (int i = 0; i < maxWatchers; i++) {
            watch(i < maxWatchersPerClient ? channel : writerChannel(), WatchGroupRequest.newBuilder().setId(GROUP).build())
                    .next(WatchGroupResponse::hasGroup);
        }
        Channel third = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(authorization(
                "Bearer " + DevTokens.mintFor("third", DevTokens.DEV_SECRET, java.time.Duration.ofHours(1)))));

        assertTooManyWatches(third, "max_watchers", maxWatchers);
    }

    /**
     * One client at its cap is refused as at the instance's, naming its own limit, and another
     * client still watches. Failed before: the client's fourth watch sent the group.
     */
    @Test
    void aClientsWatchesBeyondItsOwnLimitAreRefusedWithResourceExhaustedAndRetryInfo() {
        for (int i = 0; i < maxWatchersPerClient; i++) {
            watch(WatchGroupRequest.newBuilder().setId(GROUP).build()).next(WatchGroupResponse::hasGroup);
        }

        assertTooManyWatches(channel, "max_watchers_per_client", maxWatchersPerClient);

        assertThat(watch(writerChannel(), WatchGroupRequest.newBuilder().setId(GROUP).build())
                .next(WatchGroupResponse::hasGroup).getGroup().getId()).as("a client with a token of its own").isEqualTo(GROUP);
    }

    /** RESOURCE_EXHAUSTED with RetryInfo 5 s, and ErrorInfo naming the limit that refused. */
    private void assertTooManyWatches(Channel client, String limit, int value) {
        StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                () -> watch(client, WatchGroupRequest.newBuilder().setId(GROUP).build()).messages.hasNext());

        assertThat(refused).as("refused").isNotNull();
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        List<Any> details = StatusProto.fromThrowable(refused).getDetailsList();
        assertThat(details).filteredOn(detail -> detail.is(RetryInfo.class))
                .singleElement().satisfies(detail -> assertThat(detail.unpack(RetryInfo.class).getRetryDelay())
                        .isEqualTo(Duration.newBuilder().setSeconds(5).build()));
        assertThat(details).filteredOn(detail -> detail.is(ErrorInfo.class))
                .singleElement().satisfies(detail -> assertThat(detail.unpack(ErrorInfo.class).getMetadataMap())
                        .containsEntry(limit, String.valueOf(value)));
    }

    /**
     * A client that takes no message loses its watch after the stall timeout, even on a group that
     * does not change, where the watch sends only heartbeats of a few bytes. Failed before: grpc-java
     * says a call is ready until 32 KiB wait in it, which heartbeats alone take hours to fill, so the
     * watch of a client whose window stayed at 0 was never found stalled and held its place
     * ("the watch held by a client that takes nothing to end" not within 20 s, the timeout 3 s).
     * Once the client reads again it learns why: UNAVAILABLE naming the stall timeout, queued behind
     * what it had not read (with the call left unended, "the call did not end within PT20S once its
     * client read again").
     */
    @Test
    void aClientThatTakesNothingLosesItsWatchOfAQuietGroup() throws Exception {
        try (RawHttp2Call.TakingNothing client = RawHttp2Call.takingNothing(grpcPort(), "/tandem.v1.StudyGroupService/WatchGroup",
                WatchGroupRequest.newBuilder().setId(GROUP).build().toByteArray())) {
            Await.until("the watch to start", java.time.Duration.ofSeconds(20), () -> watch.watching() == 1);
            Await.until("the watch held by a client that takes nothing to end", java.time.Duration.ofSeconds(20),
                    () -> watch.watching() == 0);
            // The status waits behind what the client has not read; once it reads, it learns why.
            RawHttp2Call.Trailers ended = client.readAgain(java.time.Duration.ofSeconds(20));
            assertThat(ended.grpcStatus()).as("the stalled call's status").isEqualTo(Status.Code.UNAVAILABLE.value());
            assertThat(ended.errorInfo().getReason()).isEqualTo("UNAVAILABLE");
            assertThat(ended.headers().get("grpc-message").toString()).contains("tandem.watch.stall-timeout");
        }
    }

    @Test
    void aCancelledStreamFreesItsPlace() {
        Stream stream = watch(WatchGroupRequest.newBuilder().setId(GROUP).build());
        stream.next(WatchGroupResponse::hasGroup);
        assertThat(watch.watching()).isEqualTo(1);

        stream.call.cancel("client leaves", null);

        Await.until("the cancelled watch to be released", java.time.Duration.ofSeconds(10), () -> watch.watching() == 0);
    }

    /**
     * No request deadline applies to a watch, but the client's own does (README, "Limits and
     * shutdown"): the call ends with DEADLINE_EXCEEDED, after the messages sent until then, and
     * the watch gives its place back.
     */
    @Test
    void theClientsOwnDeadlineEndsItsWatchAndFreesItsPlace() {
        Stream stream = watch(channel, WatchGroupRequest.newBuilder().setId(GROUP).build(), 2);
        stream.next(WatchGroupResponse::hasGroup);

        StatusRuntimeException ended = catchThrowableOfType(StatusRuntimeException.class, () -> stream.next(m -> false));

        assertThat(ended).as("the call's end").isNotNull();
        assertThat(ended.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        Await.until("the watch past its deadline to be released", java.time.Duration.ofSeconds(10), () -> watch.watching() == 0);
    }

    // ---- helpers -----------------------------------------------------------------------------

    private Stream watch(WatchGroupRequest request) {
        return watch(channel, request);
    }

    /** A watch by the client that {@code client} sends as (its token, if any; all from 127.0.0.1). */
    private Stream watch(Channel client, WatchGroupRequest request) {
        return watch(client, request, 60);
    }

    private Stream watch(Channel client, WatchGroupRequest request, int deadlineSeconds) {
        ClientCall<WatchGroupRequest, WatchGroupResponse> call = client.newCall(StudyGroupServiceGrpc.getWatchGroupMethod(),
                CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS));
        Stream stream = new Stream(call, ClientCalls.blockingServerStreamingCall(call, request));
        streams.add(stream);
        return stream;
    }

    private record Stream(ClientCall<WatchGroupRequest, WatchGroupResponse> call, Iterator<WatchGroupResponse> messages) {
        /** The next message that is {@code wanted}, skipping others (bounded by the call's deadline). */
        WatchGroupResponse next(Predicate<WatchGroupResponse> wanted) {
            while (true) {
                WatchGroupResponse message = messages.next();
                if (wanted.test(message)) {
                    return message;
                }
            }
        }
    }
}
