package dev.tandem.grpc.server;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.io.InputStream;
import java.util.List;

/**
 * Makes request bytes that do not parse (truncated or foreign protobuf, invalid UTF-8 in a string)
 * an INVALID_ARGUMENT like any other bad input. Left alone, grpc-java parses the request before any
 * interceptor or handler sees it, fails, and answers UNKNOWN "Application error processing RPC",
 * which tells a client nothing and blames the server for the client's mistake.
 *
 * <p>The service's methods get a request marshaller that never throws: a failed parse yields a
 * marker, and the marker is thrown as a DomainException from the listener, where Spring gRPC's
 * exception interceptor catches it and {@link dev.tandem.grpc.error.GrpcErrors} maps it like every
 * other failure. A call that should carry one request message and carries none, or more, is refused
 * the same way: grpc-java's unary handler would close it INTERNAL.
 */
public final class MalformedRequests {

    private MalformedRequests() {
    }

    /** The same service with every method's request parsing guarded; the schema (for reflection) is kept. */
    public static ServerServiceDefinition rejectedAsInvalidArgument(ServerServiceDefinition service) {
        ServiceDescriptor original = service.getServiceDescriptor();
        List<ServerMethodDefinition<Object, ?>> methods = service.getMethods().stream()
                .<ServerMethodDefinition<Object, ?>>map(MalformedRequests::guarded)
                .toList();
        // A ServerServiceDefinition insists that its descriptor holds the very same method descriptors.
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(original.getName())
                .setSchemaDescriptor(original.getSchemaDescriptor());
        methods.forEach(method -> descriptor.addMethod(method.getMethodDescriptor()));
        ServerServiceDefinition.Builder guarded = ServerServiceDefinition.builder(descriptor.build());
        methods.forEach(guarded::addMethod);
        return guarded.build();
    }

    private static <Q, R> ServerMethodDefinition<Object, R> guarded(ServerMethodDefinition<Q, R> method) {
        MethodDescriptor<Q, R> original = method.getMethodDescriptor();
        MethodDescriptor<Object, R> lenient = original.toBuilder(
                new LenientMarshaller<>(original.getRequestMarshaller(), original.getFullMethodName()),
                original.getResponseMarshaller()).build();
        ServerCallHandler<Q, R> handler = method.getServerCallHandler();
        return ServerMethodDefinition.create(lenient, (call, headers) -> {
            // The handler only sends responses and reads the descriptor's name; it never sees a
            // marker, because the listener below throws on one instead of delivering it.
            @SuppressWarnings("unchecked")
            ServerCall<Q, R> typed = (ServerCall<Q, R>) (ServerCall<?, R>) call;
            return new RejectingListener<>(handler.startCall(typed, headers), original);
        });
    }

    /**
     * What a request that did not parse becomes, instead of an exception inside grpc-java. One whose
     * compressed bytes unzip past the inbound limit is over the limit (RESOURCE_EXHAUSTED, as the same
     * message sent uncompressed is), not malformed: grpc-java's size check on the unzipped stream
     * fails inside the parse.
     */
    private record Unparseable(String fullMethodName, String reason, boolean tooLarge) {

        DomainException failure() {
            return tooLarge
                    ? new DomainException(ErrorCode.RESOURCE_EXHAUSTED, "the request of " + fullMethodName + " is too large: " + reason)
                    : new DomainException(ErrorCode.INVALID_ARGUMENT, "the request of " + fullMethodName
                            + " is not a valid protobuf message: " + reason);
        }
    }

    private record LenientMarshaller<Q>(MethodDescriptor.Marshaller<Q> delegate, String fullMethodName)
            implements MethodDescriptor.Marshaller<Object> {

        @Override
        @SuppressWarnings("unchecked")
        public InputStream stream(Object value) {
            return delegate.stream((Q) value);
        }

        @Override
        public Object parse(InputStream stream) {
            try {
                return delegate.parse(stream);
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                return new Unparseable(fullMethodName, String.valueOf(cause.getMessage()), overTheLimit(e));
            }
        }

        private static boolean overTheLimit(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
                    return true;
                }
            }
            return false;
        }
    }

    private static final class RejectingListener<Q> extends ServerCall.Listener<Object> {

        private final ServerCall.Listener<Q> delegate;
        private final MethodDescriptor<?, ?> method;
        private int messages;
        /** The call was refused (the exception handler closed it): nothing more reaches the handler. */
        private boolean refused;

        RejectingListener(ServerCall.Listener<Q> delegate, MethodDescriptor<?, ?> method) {
            this.delegate = delegate;
            this.method = method;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void onMessage(Object message) {
            if (refused) {
                return;
            }
            if (message instanceof Unparseable unparseable) {
                throw refuse(unparseable.failure());
            }
            if (++messages > 1 && method.getType().clientSendsOneMessage()) {
                throw refuse(notOneMessage());
            }
            delegate.onMessage((Q) message);
        }

        @Override
        public void onHalfClose() {
            if (refused) {
                return;
            }
            if (messages == 0 && method.getType().clientSendsOneMessage()) {
                throw refuse(notOneMessage());
            }
            delegate.onHalfClose();
        }

        private DomainException notOneMessage() {
            return new DomainException(ErrorCode.INVALID_ARGUMENT, method.getFullMethodName()
                    + " takes exactly one request message; the call carried " + (messages == 0 ? "none" : "more"));
        }

        private DomainException refuse(DomainException failure) {
            refused = true;
            return failure;
        }

        @Override
        public void onCancel() {
            delegate.onCancel();
        }

        @Override
        public void onComplete() {
            delegate.onComplete();
        }

        @Override
        public void onReady() {
            delegate.onReady();
        }
    }
}
