package dev.tandem.grpc.ratelimit;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.RetryInfo;
import dev.tandem.grpc.GrpcFailure;
import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.grpc.auth.WriteAuthInterceptor;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.ratelimit.ClientRateLimiter;
import dev.tandem.ratelimit.RateLimitScenarios;
import dev.tandem.testsupport.Await;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimitScenarios} on gRPC: a refusal is RESOURCE_EXHAUSTED with ErrorInfo (the limit
 * in its metadata) and RetryInfo in whole seconds, and one more
 * {@code tandem.ratelimit.refused{wire=grpc}}.
 */
@TestPropertySource(properties = RateLimitScenarios.PROPERTIES)
class RateLimitGrpcTest extends GrpcIntegrationTest implements RateLimitScenarios.RateLimitedWire {

    private static final long BOUND_SECONDS = 60;

    @Autowired private MeterRegistry registry;

    @TestFactory
    Stream<DynamicTest> everyRateLimitScenario() {
        return RateLimitScenarios.on(this);
    }

    /** Calls the server's observation (grpc.server) saw end with RESOURCE_EXHAUSTED. */
    private double observedRefusals() {
        return registry.find("grpc.server").tag("grpc.status_code", "RESOURCE_EXHAUSTED").timers().stream()
                .mapToDouble(timer -> timer.count()).sum();
    }

    @Override
    public OptionalLong read(String authorization) {
        double refusedBefore = refused();
        double observedBefore = observedRefusals();
        StudyGroupServiceGrpc.StudyGroupServiceBlockingStub stub = anonymousApi();
        if (authorization != null) {
            Metadata headers = new Metadata();
            headers.put(WriteAuthInterceptor.AUTHORIZATION, authorization);
            stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
        }
        StatusRuntimeException refusal;
        try {
            stub.getGroup(GetGroupRequest.newBuilder().setId(1).build());
            assertThat(refused()).as("refusals counted").isEqualTo(refusedBefore);
            return OptionalLong.empty();
        } catch (StatusRuntimeException e) {
            refusal = e;
        }
        GrpcFailure failure = GrpcFailure.of(() -> {
            throw refusal;
        }).assertCode(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(failure.message()).contains("too many requests");
        assertThat(failure.errorInfo().getMetadataMap()).containsEntry("burst", String.valueOf(RateLimitScenarios.BURST));
        assertThat(refused()).as("refusals counted").isEqualTo(refusedBefore + 1);
        // In the server's own metrics too, as REST's http.server.requests counts its 429 (recorded as
        // the call closes, which the client may see first).
        Await.until("grpc.server to count the call ended RESOURCE_EXHAUSTED", java.time.Duration.ofSeconds(BOUND_SECONDS),
                () -> observedRefusals() == observedBefore + 1);
        RetryInfo retry = detail(StatusProto.fromThrowable(refusal), RetryInfo.class);
        assertThat(retry.getRetryDelay().getNanos()).as("whole seconds").isZero();
        return OptionalLong.of(retry.getRetryDelay().getSeconds());
    }

    @Override
    public void unlimitedEndpointsAnswer() {
        for (int i = 0; i <= RateLimitScenarios.BURST; i++) {
            HealthCheckResponse health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.newBuilder().setService("").build());
            assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        }
        CompletableFuture<ServerReflectionResponse> answered = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> reflection = ServerReflectionGrpc.newStub(channel)
                .withDeadlineAfter(BOUND_SECONDS, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override public void onNext(ServerReflectionResponse response) { answered.complete(response); }
                    @Override public void onError(Throwable t) { answered.completeExceptionally(t); }
                    @Override public void onCompleted() { answered.completeExceptionally(new AssertionError("no answer")); }
                });
        reflection.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        reflection.onCompleted();
        assertThat(answered.orTimeout(BOUND_SECONDS, TimeUnit.SECONDS).join().hasListServicesResponse()).isTrue();
    }

    private static <T extends com.google.protobuf.Message> T detail(com.google.rpc.Status status, Class<T> type) {
        for (Any detail : status.getDetailsList()) {
            if (detail.is(type)) {
                try {
                    return detail.unpack(type);
                } catch (InvalidProtocolBufferException e) {
                    throw new AssertionError("undecodable " + type.getSimpleName(), e);
                }
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + status);
    }

    private double refused() {
        return registry.get(ClientRateLimiter.REFUSED_METER).tag("wire", "grpc").counter().count();
    }
}
