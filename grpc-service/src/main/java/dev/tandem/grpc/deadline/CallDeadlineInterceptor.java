package dev.tandem.grpc.deadline;

import dev.tandem.deadline.RequestDeadline;
import dev.tandem.deadline.RequestDeadlines;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Runs every call under a {@link RequestDeadline}: the call's own deadline (the client's
 * {@code grpc-timeout}, which grpc-java puts on the call's Context), never later than
 * {@code tandem.limits.request-timeout}. The Context is cancelled when the client cancels or the
 * deadline passes; that cancels the running SQL statement at once (KILL QUERY), so the handler's
 * transaction rolls back and its thread is freed instead of waiting on, say, a row lock. A call
 * whose deadline has already passed when its handler would start fails with DEADLINE_EXCEEDED
 * without touching the database.
 *
 * <p>Inside Spring gRPC's exception-handling interceptor (which has the highest precedence), so what
 * this throws is mapped by GrpcErrors like any other failure. Each listener callback may run on
 * another virtual thread, so the deadline is bound per callback.
 */
@Component
@GlobalServerInterceptor
@Order(Ordered.HIGHEST_PRECEDENCE + 100)
public class CallDeadlineInterceptor implements ServerInterceptor {

    private final RequestDeadlines deadlines;

    public CallDeadlineInterceptor(RequestDeadlines deadlines) {
        this.deadlines = deadlines;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        Context context = Context.current();
        Deadline callDeadline = context.getDeadline();
        RequestDeadline deadline = deadlines.open(callDeadline == null ? null
                : Duration.ofNanos(callDeadline.timeRemaining(TimeUnit.NANOSECONDS)));
        Context.CancellationListener onCancel = cancelled -> deadline.cancel();
        context.addListener(onCancel, Runnable::run);
        ServerCall.Listener<Q> delegate;
        try (RequestDeadline.Binding ignored = deadline.bind()) {
            delegate = next.startCall(call, headers);
        } catch (RuntimeException | Error e) {
            context.removeListener(onCancel);
            deadline.close();
            throw e;
        }
        return new SimpleForwardingServerCallListener<>(delegate) {

            @Override
            public void onMessage(Q message) {
                try (RequestDeadline.Binding ignored = deadline.bind()) {
                    super.onMessage(message);
                }
            }

            @Override
            public void onHalfClose() {
                // A unary handler runs here: not at all once the deadline has passed.
                deadline.throwIfExpired();
                try (RequestDeadline.Binding ignored = deadline.bind()) {
                    super.onHalfClose();
                }
            }

            @Override
            public void onReady() {
                try (RequestDeadline.Binding ignored = deadline.bind()) {
                    super.onReady();
                }
            }

            @Override
            public void onCancel() {
                end();
                super.onCancel();
            }

            @Override
            public void onComplete() {
                end();
                super.onComplete();
            }

            private void end() {
                context.removeListener(onCancel);
                deadline.close();
            }
        };
    }
}
