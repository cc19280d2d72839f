package dev.tandem.grpc.deadline;

import dev.tandem.deadline.RequestDeadline;
import dev.tandem.deadline.RequestDeadlines;
import dev.tandem.error.DataAccessFailures;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.grpc.error.GrpcErrors;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs every call under a {@link RequestDeadline}: the call's own deadline (the client's
 * {@code grpc-timeout}, which grpc-java puts on the call's Context), never later than
 * {@code tandem.limits.request-timeout}. The Context is cancelled when the client cancels or the
 * deadline passes; that cancels the running SQL statement at once (KILL QUERY), so the handler's
 * transaction rolls back and its thread is freed instead of waiting on, say, a row lock. A call
 * whose deadline has already passed when its handler would start fails with DEADLINE_EXCEEDED
 * without touching the database.
 *
 * <p>The deadline also bounds the request's arrival. A call carrying one request message (unary,
 * and server-streaming WatchGroup) whose request has not fully arrived (no half-close: the client
 * sent HEADERS, perhaps its message, never END_STREAM) by the deadline is closed DEADLINE_EXCEEDED,
 * with the ErrorInfo {@link GrpcErrors} gives every DEADLINE_EXCEEDED. grpc-java ends a call at its
 * deadline only when the client sent {@code grpc-timeout} (it then resets the stream); without one,
 * nothing did, and such a call held its stream, and with admission control on its permit, for as long
 * as its client kept the connection ({@link Arrival}). Only the arrival is bounded: once the request
 * is in, a stream lives as long as it does. Client- and bidi-streaming calls (only reflection here)
 * are not bounded this way: their request arrives for as long as the stream lives.
 *
 * <p>Inside Spring gRPC's exception-handling interceptor (which has the highest precedence), so what
 * this throws is mapped by GrpcErrors like any other failure. Each listener callback may run on
 * another virtual thread, so the deadline is bound per callback.
 */
@Component
@GlobalServerInterceptor
@Order(Ordered.HIGHEST_PRECEDENCE + 100)
public class CallDeadlineInterceptor implements ServerInterceptor {

    private static final Logger log = LoggerFactory.getLogger(CallDeadlineInterceptor.class);

    private final RequestDeadlines deadlines;

    public CallDeadlineInterceptor(RequestDeadlines deadlines) {
        this.deadlines = deadlines;
    }

    /**
     * {@code failure}, or, when {@code deadline} cut it short ({@link DataAccessFailures#cutShortBy}), a
     * QueryTimeoutException around it, which GrpcErrors answers DEADLINE_EXCEEDED. GrpcErrors, the
     * outermost interceptor, sees a failure only once this callback's binding of the deadline is gone,
     * and read a frozen database's connection, aborted after the deadline, as the database away
     * (UNAVAILABLE), where REST, which classifies while the deadline is bound, answers 504.
     */
    private static RuntimeException seenUnderTheDeadline(RuntimeException failure, RequestDeadline deadline) {
        return DataAccessFailures.cutShortBy(deadline, failure)
                ? new QueryTimeoutException("the call's deadline passed before the database answered", failure)
                : failure;
    }

    /**
     * The cause a call closed because its request never arrived in full is closed with: not sent
     * to the client (a status's cause never is), it tells admission control that the call's end is
     * no latency sample (AdmissionAtArrival): the instance never had the request.
     */
    public static final class RequestNotArrived extends RuntimeException {

        RequestNotArrived(String message) {
            super(message, null, false, false);
        }
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
        Arrival<Q, R> arrival = call.getMethodDescriptor().getType().clientSendsOneMessage()
                ? new Arrival<>(call, deadline) : null;
        ServerCall.Listener<Q> delegate;
        try (RequestDeadline.Binding ignored = deadline.bind()) {
            delegate = next.startCall(arrival == null ? call : arrival.call(), headers);
        } catch (RuntimeException | Error e) {
            context.removeListener(onCancel);
            deadline.close();
            throw e;
        }
        if (arrival != null) {
            // Armed once the listener exists: until startCall returns no callback can run, and the
            // deadline counts from when the call was opened all the same.
            arrival.arm();
        }
        return new SimpleForwardingServerCallListener<>(delegate) {

            @Override
            public void onMessage(Q message) {
                int entered = Arrival.enter(arrival);
                if (entered == Arrival.DROP) {
                    return;
                }
                try (RequestDeadline.Binding ignored = deadline.bind()) {
                    super.onMessage(message);
                } catch (RuntimeException e) {
                    Arrival.failed(arrival, entered);
                    throw seenUnderTheDeadline(e, deadline);
                } catch (Error e) {
                    Arrival.failed(arrival, entered);
                    throw e;
                } finally {
                    Arrival.exit(arrival, entered);
                }
            }

            @Override
            public void onHalfClose() {
                int entered = Arrival.enter(arrival);
                if (entered == Arrival.DROP) {
                    return;
                }
                try {
                    // The request is in: from here only the handler ends the call, whatever the time.
                    Arrival.arrived(arrival, entered);
                    // A unary handler runs here: not at all once the deadline has passed.
                    deadline.throwIfExpired();
                    try (RequestDeadline.Binding ignored = deadline.bind()) {
                        super.onHalfClose();
                    } catch (RuntimeException e) {
                        throw seenUnderTheDeadline(e, deadline);
                    }
                } finally {
                    Arrival.exit(arrival, entered);
                }
            }

            @Override
            public void onReady() {
                int entered = Arrival.enter(arrival);
                if (entered == Arrival.DROP) {
                    return;
                }
                try (RequestDeadline.Binding ignored = deadline.bind()) {
                    super.onReady();
                } catch (RuntimeException | Error e) {
                    Arrival.failed(arrival, entered);
                    throw e;
                } finally {
                    Arrival.exit(arrival, entered);
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
                if (arrival != null) {
                    arrival.ended();
                }
                context.removeListener(onCancel);
                deadline.close();
            }
        };
    }

    /**
     * The bound on a call's arrival: a timer that, at the call's deadline, closes the call if its
     * request has not fully arrived (no half-close), and otherwise does nothing.
     *
     * <p>Why it can close the call from the timer's thread: a ServerCall's methods must never run
     * concurrently, and before half-close no handler code runs on its own (the unary handler waits
     * for the half-close); what can touch the call then is a listener callback (onMessage refusing a
     * request that does not parse, say), and the listener's callbacks run one at a time. So the
     * timer and the callbacks exclude each other through {@link #state}: the timer closes the call
     * only while no callback runs and the call is still waiting for its request; when a callback
     * runs, the timer leaves the close to it, and the callback closes the call on its way out. Once
     * the request is in (onHalfClose), once the call was closed by anyone else, failed or ended,
     * the timer does nothing; once the timer closed it, no callback reaches the handler.
     */
    static final class Arrival<Q, R> {

        /** What {@link #enter} answers: the callback runs excluding the timer, runs as it is, or is dropped. */
        static final int GUARDED = 0, PASS = 1, DROP = 2;

        // The states of an arrival, in #state.
        private static final int WAITING = 0;      // the request has not fully arrived; no callback runs
        private static final int IN_CALLBACK = 1;  // a callback runs while it has not: the timer may not close
        private static final int DUE = 2;          // the deadline passed during that callback: it closes the call
        private static final int SETTLED = 3;      // arrived, closed by someone else, failed or ended: nothing to do
        private static final int TIMED_OUT = 4;    // closed at the deadline: nothing more reaches the handler

        private final ServerCall<Q, R> call;
        private final RequestDeadline deadline;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private volatile Future<?> timer;

        Arrival(ServerCall<Q, R> call, RequestDeadline deadline) {
            this.call = call;
            this.deadline = deadline;
        }

        /** The call as the handler gets it: a close of its own settles the arrival, so the timer never closes it twice. */
        ServerCall<Q, R> call() {
            return new SimpleForwardingServerCall<>(call) {
                @Override
                public void close(Status status, Metadata trailers) {
                    settle();
                    super.close(status, trailers);
                }
            };
        }

        void arm() {
            timer = deadline.atDeadline(this::deadlinePassed);
            if (state.get() == SETTLED) {
                // Closed inside startCall, before the timer existed (ended() cancels only a timer it sees).
                timer.cancel(false);
            }
        }

        /** On the timer's thread, once the deadline has passed. */
        private void deadlinePassed() {
            while (true) {
                int now = state.get();
                if (now == WAITING) {
                    if (state.compareAndSet(WAITING, TIMED_OUT)) {
                        close();
                        return;
                    }
                } else if (now == IN_CALLBACK) {
                    if (state.compareAndSet(IN_CALLBACK, DUE)) {
                        return;
                    }
                } else {
                    return;
                }
            }
        }

        static int enter(Arrival<?, ?> arrival) {
            if (arrival == null) {
                return PASS;
            }
            // Callbacks never overlap, so only the timer can move the state meanwhile.
            if (arrival.state.compareAndSet(WAITING, IN_CALLBACK)) {
                return GUARDED;
            }
            return arrival.state.get() == TIMED_OUT ? DROP : PASS;
        }

        static void exit(Arrival<?, ?> arrival, int entered) {
            if (entered != GUARDED) {
                return;
            }
            if (arrival.state.compareAndSet(IN_CALLBACK, WAITING)) {
                return;
            }
            if (arrival.state.compareAndSet(DUE, TIMED_OUT)) {
                // The deadline passed while this callback ran, and the request is still not in.
                arrival.close();
            }
        }

        /** The request is in (onHalfClose): the timer will do nothing. */
        static void arrived(Arrival<?, ?> arrival, int entered) {
            if (entered == GUARDED) {
                arrival.settle();
            }
        }

        /** A callback threw: the exception handler closes the call with what it threw. */
        static void failed(Arrival<?, ?> arrival, int entered) {
            if (entered == GUARDED) {
                arrival.settle();
            }
        }

        /** The call is over (onComplete, onCancel). */
        void ended() {
            settle();
        }

        private void settle() {
            int now;
            do {
                now = state.get();
                if (now == SETTLED || now == TIMED_OUT) {
                    return;
                }
            } while (!state.compareAndSet(now, SETTLED));
            Future<?> armed = timer;
            if (armed != null) {
                armed.cancel(false);
            }
        }

        private void close() {
            DomainException exceeded = new DomainException(ErrorCode.DEADLINE_EXCEEDED,
                    "the request did not arrive in full (no end of stream) before its deadline");
            StatusException answer = GrpcErrors.toStatusException(exceeded);
            try {
                call.close(answer.getStatus().withCause(new RequestNotArrived(exceeded.getMessage())),
                        answer.getTrailers() == null ? new Metadata() : answer.getTrailers());
            } catch (RuntimeException e) {
                // The transport may have ended the stream meanwhile (the client reset it): nothing to answer.
                log.debug("Could not close a call whose request did not arrive in time", e);
            }
        }
    }
}
