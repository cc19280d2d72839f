package dev.tandem.grpc.admission;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.grpc.auth.WriteAuthInterceptor;
import dev.tandem.grpc.deadline.CallDeadlineInterceptor;
import dev.tandem.grpc.server.CallThreads;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.Status;
import org.jspecify.annotations.Nullable;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where a gRPC call is admitted or refused: on the transport thread, as it arrives, before it is
 * handed to the call executor.
 *
 * <p>Why there: grpc-java runs every call on the server's executor (a virtual thread per call here),
 * and an interceptor runs only once the call has a thread. Past saturation the carriers are busy, so a
 * call asking an interceptor for a permit had already waited behind every call queued before it, and
 * each refusal still paid the hand-off. The overload bench measured that (README, "Under overload"):
 * accepted calls waited 4.5 s and goodput at twice the saturating rate fell from 2,864 to 335 calls a
 * second. grpc-java's {@link ServerCallExecutorSupplier} is asked per call where the call's method
 * is looked up; with the server's default executor direct, that is the transport (event loop) thread.
 * An admitted call is sent to the call executor with its permit already held, so the queue in front
 * of the executor is bounded by the limit; a refused call stays on the event loop, where
 * {@link AdmissionInterceptor} closes it without ever taking a thread.
 *
 * <p>An admitted call's permit travels to the interceptor keyed by the call's {@link Context} (the
 * same object while the call's method is looked up and while its interceptors run); a refused call
 * leaves nothing behind. The permit is also released when that context ends, so it comes back even
 * when an earlier interceptor (the metadata check) closes the call before admission sees it.
 *
 * <p>It decorates {@link CallThreads}, which chooses the threads of every call it does not refuse
 * (health checks on platform threads of their own, the rest on the call executor); that part, and the
 * direct default executor, are the server's whether admission is on or off. Installed only when
 * admission control is on: off, no call pays for the permits and the context map.
 */
public final class AdmissionAtArrival implements ServerCallExecutorSupplier {

    private final AdmissionControl admission;
    private final CallThreads threads;
    private final Map<Context, Admitted> admitted = new ConcurrentHashMap<>();

    public AdmissionAtArrival(AdmissionControl admission, CallThreads threads) {
        this.admission = admission;
        this.threads = threads;
    }

    /** What admission control limits: unary calls of the API (not health, reflection or streams). */
    static boolean limits(MethodDescriptor<?, ?> method) {
        return method.getType() == MethodDescriptor.MethodType.UNARY && WriteAuthInterceptor.isApi(method);
    }

    @Override
    public <Q, R> @Nullable Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
        if (!limits(call.getMethodDescriptor())) {
            return threads.getExecutor(call, headers);
        }
        AdmissionControl.Permit permit = admission.tryAdmit();
        if (permit == null) {
            // Nothing recorded: a limited call with no permit is a refused one (the interceptor's rule),
            // and a refusal is made as cheap as it can be. null keeps the server's default executor,
            // which is direct: the refusal never takes a thread.
            return null;
        }
        Context context = Context.current();
        admitted.put(context, new Admitted(permit));
        context.addListener(ended -> {
            Admitted unclaimed = admitted.remove(ended);
            if (unclaimed != null) {
                unclaimed.release(cancelled(ended));
            }
        }, Runnable::run);
        return threads.getExecutor(call, headers);
    }

    /**
     * The permit of the call whose context is current, handed over once; null for a call refused
     * where it arrived, and for one this does not limit.
     */
    @Nullable Admitted claim() {
        return admitted.remove(Context.current());
    }

    /**
     * How close to its deadline a call's cancel is still its deadline. The client runs out first: it
     * counts from before it sent the call, the server from when the call arrived, and the client's
     * cancel (RST_STREAM) can arrive before the server's own timer fires. A CI run saw exactly that: a
     * call that waited for a thread until its deadline was taken for one whose client went away.
     */
    static final long DEADLINE_SKEW_MILLIS = 100;

    /**
     * How a call that ended without an answer ended, for {@link Admitted#release}: DEADLINE_EXCEEDED
     * when its deadline had passed or was about to ({@link #DEADLINE_SKEW_MILLIS}: it met a limit here,
     * a queue for a thread or work too slow), else null (its client went away).
     */
    static @Nullable Status cancelled(Context context) {
        Deadline deadline = context.getDeadline();
        return deadline != null && deadline.timeRemaining(TimeUnit.MILLISECONDS) < DEADLINE_SKEW_MILLIS
                ? Status.DEADLINE_EXCEEDED : null;
    }

    /** An admitted call's permit, given back exactly once however the call ends. */
    static final class Admitted {

        private final AtomicReference<AdmissionControl.Permit> permit;

        Admitted(AdmissionControl.Permit permit) {
            this.permit = new AtomicReference<>(permit);
        }

        /** {@code status}: how the call ended; null when the client went away or nothing answered it. */
        void release(@Nullable Status status) {
            AdmissionControl.Permit held = permit.getAndSet(null);
            if (held == null) {
                return;
            }
            if (status != null && status.getCause() instanceof CallDeadlineInterceptor.RequestNotArrived) {
                // Its request never arrived in full by its deadline: how long it held the permit measures
                // its client, not this instance, and a client sending slowly must not shrink the limit.
                held.ignored();
                return;
            }
            switch (status == null ? Status.Code.CANCELLED : status.getCode()) {
                // Something further down was the limit (the database, a deadline): shrink.
                // (RESOURCE_EXHAUSTED is a limit on the client, not on this instance: it counts as done.)
                case UNAVAILABLE, DEADLINE_EXCEEDED -> held.dropped();
                case CANCELLED, UNKNOWN, INTERNAL -> held.ignored();
                default -> held.completed();
            }
        }
    }
}
