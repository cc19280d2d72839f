package dev.tandem.grpc.group;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.group.GroupProto;
import dev.tandem.group.watch.GroupEvent;
import dev.tandem.group.watch.GroupWatch;
import dev.tandem.group.watch.WatchSink;
import dev.tandem.grpc.error.GrpcErrors;
import dev.tandem.proto.v1.GroupDeleted;
import dev.tandem.proto.v1.Heartbeat;
import dev.tandem.proto.v1.WatchGroupRequest;
import dev.tandem.proto.v1.WatchGroupResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * WatchGroup on the gRPC wire: {@link GroupWatch}'s events as WatchGroupResponse messages. A failure
 * before the stream starts (unknown group, bad {@code since}, the watcher limit of the instance or of
 * the client, which {@link WatchClientInterceptor} names) is thrown, so
 * GrpcErrors maps it like every other; after that the stream ends with OK after a deleted message,
 * or with UNAVAILABLE (ErrorInfo metadata {@code position}) when this instance ends it.
 *
 * <p>Flow control: the watch sends only while the call is ready (nothing it sent still waits for
 * the client's HTTP/2 window) and keeps one pending event meanwhile, so a slow client holds one message here, never a
 * queue; grpc-java's onReady resumes it. A cancelled call frees the watch, and so does a client that
 * takes nothing for {@code tandem.watch.stall-timeout}: its call ends with UNAVAILABLE. No request deadline
 * applies after the start: CallDeadlineInterceptor's deadline only bounds the SQL the handler runs,
 * and the events are read on the watch's own threads.
 */
@Component
class WatchGroupStreams {

    private final GroupWatch watch;

    WatchGroupStreams(GroupWatch watch) {
        this.watch = watch;
    }

    void start(WatchGroupRequest request, StreamObserver<WatchGroupResponse> responses) {
        ServerCallStreamObserver<WatchGroupResponse> call = (ServerCallStreamObserver<WatchGroupResponse>) responses;
        String client = WatchClientInterceptor.CLIENT.get();
        if (client == null) {
            // Only a server built without the global interceptors gets here: counting it as nobody
            // would exempt it from the per-client cap.
            throw new IllegalStateException("WatchGroup called without WatchClientInterceptor, which names its client");
        }
        GroupWatch.Watch started = watch.open(request.getId(), GroupWatch.position(request.getSince(), "since"),
                client, new CallSink(call));
        // Set before this method returns, so before grpc-java runs either (it runs them after it, in order).
        call.setOnCancelHandler(started::cancel);
        // Not ready while anything sent waits for the client's window: grpc-java's default (ready
        // until 32 KiB wait) is never reached by heartbeats of a few bytes, so a client that took
        // nothing from a group that does not change was never found stalled and kept its place.
        call.setOnReadyThreshold(1);
        call.setOnReadyHandler(started::resume);
    }

    private record CallSink(ServerCallStreamObserver<WatchGroupResponse> call) implements WatchSink {

        @Override
        public boolean ready() {
            return call.isReady();
        }

        @Override
        public void send(GroupEvent event) {
            WatchGroupResponse.Builder message = WatchGroupResponse.newBuilder()
                    .setPosition(Long.toString(event.position()));
            switch (event) {
                case GroupEvent.Changed changed -> call.onNext(message.setGroup(GroupProto.group(changed.group())).build());
                case GroupEvent.Heartbeat ignored -> call.onNext(message.setHeartbeat(Heartbeat.getDefaultInstance()).build());
                case GroupEvent.Deleted deleted -> {
                    call.onNext(message.setDeleted(GroupDeleted.newBuilder().setId(deleted.groupId())).build());
                    call.onCompleted();
                }
                case GroupEvent.Reconnect reconnect -> call.onError(watchAgain(reconnect.reason(),
                        OptionalLong.of(reconnect.position())));
            }
        }

        @Override
        public void stalled(OptionalLong resumeFrom) {
            // The watch's place is free already; the status waits behind the messages the client has
            // not read (HTTP/2 keeps a stream's frames in order), so it learns why once it reads again.
            call.onError(watchAgain("the client took no message for tandem.watch.stall-timeout", resumeFrom));
        }

        /** UNAVAILABLE naming where to watch again from (ErrorInfo metadata {@code position}), if anywhere. */
        private static Exception watchAgain(String reason, OptionalLong position) {
            return GrpcErrors.toStatusException(new DomainException(ErrorCode.UNAVAILABLE,
                    reason + (position.isPresent() ? "; watch again with since=" + position.getAsLong() : "; watch again"),
                    List.of(), null, null, Duration.ZERO,
                    position.isPresent() ? Map.of("position", Long.toString(position.getAsLong())) : Map.of(), null));
        }
    }
}
