package dev.tandem.grpc.admission;

import dev.tandem.admission.AdmissionControl;
import dev.tandem.grpc.auth.WriteAuthInterceptor;
import dev.tandem.grpc.error.GrpcErrors;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Admission control on gRPC ({@link AdmissionControl}): a call over the instance's concurrency limit
 * is closed UNAVAILABLE with RetryInfo (and ErrorInfo) before the service sees it.
 *
 * <p>Never limited: what is not the API (grpc-java's {@code grpc.health.v1.Health}, reflection), so a
 * saturated instance still answers its health checks, and streaming calls, which live long and have
 * their own limit. Ordered right after the metadata size check and the rate limit (a client over its
 * own rate takes no permit from the others), before write auth and the deadline: a refusal costs as
 * little as a call can.
 */
@Component
@GlobalServerInterceptor
@Order(Ordered.HIGHEST_PRECEDENCE + 6)
public class AdmissionInterceptor implements ServerInterceptor {

    private final AdmissionControl admission;

    public AdmissionInterceptor(AdmissionControl admission) {
        this.admission = admission;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        MethodDescriptor<Q, R> method = call.getMethodDescriptor();
        if (!admission.enabled() || method.getType() != MethodDescriptor.MethodType.UNARY
                || !WriteAuthInterceptor.isApi(method)) {
            return next.startCall(call, headers);
        }
        AdmissionControl.Permit permit = admission.tryAdmit();
        if (permit == null) {
            StatusException refused = GrpcErrors.toStatusException(admission.refusal());
            call.close(refused.getStatus(), refused.getTrailers() == null ? new Metadata() : refused.getTrailers());
            return new ServerCall.Listener<>() {
            };
        }
        AdmittedCall<Q, R> admitted = new AdmittedCall<>(call, permit);
        ServerCall.Listener<Q> listener;
        try {
            listener = next.startCall(admitted, headers);
        } catch (RuntimeException e) {
            admitted.release(null);
            throw e;
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    admitted.release(null);
                }
            }
        };
    }

    /** The call with its permit, given back exactly once: when the call is closed, or cancelled first. */
    private static final class AdmittedCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {

        private final AtomicReference<AdmissionControl.Permit> permit;

        AdmittedCall(ServerCall<Q, R> call, AdmissionControl.Permit permit) {
            super(call);
            this.permit = new AtomicReference<>(permit);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            try {
                super.close(status, trailers);
            } finally {
                release(status);
            }
        }

        /** {@code status}: how the call ended; null when the client went away first. */
        void release(Status status) {
            AdmissionControl.Permit held = permit.getAndSet(null);
            if (held == null) {
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
