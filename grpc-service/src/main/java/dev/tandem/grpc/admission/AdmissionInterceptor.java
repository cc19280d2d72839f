package dev.tandem.grpc.admission;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.error.DomainException;
import dev.tandem.grpc.error.GrpcErrors;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

import java.util.function.Supplier;

/**
 * Admission control on gRPC ({@link AdmissionControl}) carried out: a call refused where it arrived
 * ({@link AdmissionAtArrival}) is closed UNAVAILABLE with RetryInfo (and ErrorInfo) before the
 * service sees it, still on the transport thread; an admitted one gives its permit back when it is
 * closed, reporting how it ended.
 *
 * <p>Never limited: what is not the API (grpc-java's {@code grpc.health.v1.Health}, reflection), so a
 * saturated instance still answers its health checks, and streaming calls, which live long and have
 * their own limit. The permit is taken before any interceptor runs; this one is ordered right after
 * the metadata size check, whose refusal gives its permit back unsampled (the call's context ends,
 * as REST's oversized headers never reach the valve), and before the rate limit, write auth and the
 * deadline, whose answers it sees: a call the rate limit refuses is a sample, as on REST, where the
 * rate limit is a filter behind the valve.
 */
@Component
@GlobalServerInterceptor
@Order(Ordered.HIGHEST_PRECEDENCE + 3)
public class AdmissionInterceptor implements ServerInterceptor {

    private final AdmissionControl admission;
    private final ObjectProvider<AdmissionAtArrival> arrival;
    private final GrpcErrors errors;
    private final Supplier<Refusal> refusal;

    public AdmissionInterceptor(AdmissionControl admission, ObjectProvider<AdmissionAtArrival> arrival, GrpcErrors errors) {
        this.admission = admission;
        this.arrival = arrival;
        this.errors = errors;
        // Made once per limit, not per refused call: each made two exceptions (both filling in the event
        // loop's stack) and a google.rpc.Status with packed, serialised details. By scripts/refusal-cost.sh
        // grpc (its callers then on one connection) that took a refusal from 14-20 to 10-13 µs of CPU, and
        // in the overload bench from 21-25 to 16-20 µs (README, "Under overload").
        this.refusal = admission.keptRefusal(Refusal::of);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        if (!admission.enabled() || !AdmissionAtArrival.limits(call.getMethodDescriptor())) {
            return next.startCall(call, headers);
        }
        AdmissionAtArrival.Admitted admitted = arrival.getObject().claim();
        Status ended = admitted == null ? Contexts.statusFromCancelled(Context.current()) : null;
        if (ended != null) {
            // Admitted, but its context ended (its deadline passed, its client left) while it waited for
            // a thread, and its permit went back then (AdmissionAtArrival): answered as what ended it,
            // not as a refusal it never had (UNAVAILABLE with a retry hint, when grpc-java had not
            // cancelled the stream yet).
            call.close(ended, new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        if (admitted == null) {
            // Refused where it arrived (or, never expected, undecided: refused rather than run unlimited).
            Refusal refusal = this.refusal.get();
            Metadata trailers = new Metadata();  // a call's trailers are written into by the transport: one each
            trailers.merge(refusal.trailers());
            call.close(refusal.status(), trailers);
            return new ServerCall.Listener<>() {
            };
        }
        ServerCall.Listener<Q> listener;
        try {
            listener = next.startCall(new AdmittedCall<>(call, admitted), headers);
        } catch (RuntimeException e) {
            admitted.release(null);
            throw e;
        }
        // A call the service fails by throwing is answered by the exception handler, inside this
        // interceptor (GrpcObservationOrder), which closes AdmittedCall with the status it answers.
        // What an interceptor between here and there throws passes here: the permit goes back with
        // the status the handler would answer, and on completion whatever happened (a release after
        // the first does nothing).
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onMessage(Q message) {
                try {
                    super.onMessage(message);
                } catch (RuntimeException e) {
                    throw released(e);
                }
            }

            @Override
            public void onHalfClose() {
                try {
                    super.onHalfClose();
                } catch (RuntimeException e) {
                    throw released(e);
                }
            }

            /**
             * {@code failure}, once the permit is back with the status it will be answered with; or, for
             * a call already cancelled, with how it was cancelled: a client's cancel stops the call's
             * statement (RequestDeadline), whose failure says DEADLINE_EXCEEDED and reaches here before
             * onCancel does, and a client that went away is no sample, not a drop.
             */
            private RuntimeException released(RuntimeException failure) {
                Context context = Context.current();
                admitted.release(context.isCancelled() ? AdmissionAtArrival.cancelled(context)
                        : Status.fromCode(errors.codeOf(failure)));
                return failure;
            }

            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    admitted.release(AdmissionAtArrival.cancelled(Context.current()));
                }
            }

            @Override
            public void onComplete() {
                try {
                    super.onComplete();
                } finally {
                    admitted.release(null);
                }
            }
        };
    }

    /** A refused call's status, and the trailers merged into each refused call's own (never sent as they are). */
    private record Refusal(Status status, Metadata trailers) {

        static Refusal of(DomainException refusal) {
            StatusException refused = GrpcErrors.toStatusException(refusal);
            return new Refusal(refused.getStatus(), refused.getTrailers() == null ? new Metadata() : refused.getTrailers());
        }
    }

    /** The call with its permit, given back when the call is closed, with the status it was closed with. */
    private static final class AdmittedCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {

        private final AdmissionAtArrival.Admitted admitted;

        AdmittedCall(ServerCall<Q, R> call, AdmissionAtArrival.Admitted admitted) {
            super(call);
            this.admitted = admitted;
        }

        /**
         * The permit goes back before the call is closed: closed from a thread other than the call's
         * own (CallDeadlineInterceptor's timer, for a request that never arrived in full), the
         * transport can end the call, and the listener release it as complete with no status,
         * before close() returns. A call already cancelled is released with how it was cancelled: a
         * client's cancel stops the call's statement (RequestDeadline), whose failure is answered
         * DEADLINE_EXCEEDED before onCancel runs, and a client that went away is no sample, not a
         * drop (on the call's own thread, where the context is the call's).
         */
        @Override
        public void close(Status status, Metadata trailers) {
            Context context = Context.current();
            admitted.release(context.isCancelled() ? AdmissionAtArrival.cancelled(context) : status);
            super.close(status, trailers);
        }
    }
}
