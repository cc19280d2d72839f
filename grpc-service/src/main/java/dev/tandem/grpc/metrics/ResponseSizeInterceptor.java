package dev.tandem.grpc.metrics;

import com.google.protobuf.MessageLite;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records the serialized size of every response message, per method, as the distribution
 * summary {@code tandem.grpc.response.bytes{method="tandem.v1.StudyGroupService/GetGroup"}}
 * ({@code tandem_grpc_response_bytes_count/_sum} on /actuator/prometheus). This is the Protobuf
 * body size the bench compares with the JSON body of the same REST request; a load generator
 * cannot see it. {@code getSerializedSize()} is memoized by generated messages, so the
 * marshaller that writes the message afterwards does not compute it twice.
 */
@Component
@GlobalServerInterceptor
public class ResponseSizeInterceptor implements ServerInterceptor {

    public static final String METRIC = "tandem.grpc.response.bytes";

    private final MeterRegistry registry;
    private final Map<String, DistributionSummary> byMethod = new ConcurrentHashMap<>();

    public ResponseSizeInterceptor(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                 ServerCallHandler<ReqT, RespT> next) {
        DistributionSummary summary = byMethod.computeIfAbsent(call.getMethodDescriptor().getFullMethodName(),
                method -> DistributionSummary.builder(METRIC)
                        .description("Serialized size of gRPC response messages")
                        .baseUnit(BaseUnits.BYTES)
                        .tag("method", method)
                        .register(registry));
        return next.startCall(new SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(RespT message) {
                if (message instanceof MessageLite protobuf) {
                    summary.record(protobuf.getSerializedSize());
                }
                super.sendMessage(message);
            }
        }, headers);
    }
}
