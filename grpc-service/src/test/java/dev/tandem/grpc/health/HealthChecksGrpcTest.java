package dev.tandem.grpc.health;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.testsupport.HeldCarriers;
import dev.tandem.testsupport.TlsExtraPort;
import dev.tandem.tls.TlsProperties;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * grpc.health.v1 is never starved by the calls (#17), whether admission control is on or off, on the
 * plain port and on the TLS extra port: with every carrier held, as on an instance whose CPU the calls
 * have saturated, an API call is never run while a health check with a deadline is still answered
 * SERVING. A Kubernetes gRPC probe that ran out of its timeout restarted an instance that was only
 * busy. Failed before with admission off (the default): health checks ran on the calls' virtual
 * threads and ran out of their deadline, and on the TLS port the handshake itself waited for one
 * (grpc-java runs its delegated tasks on the server's default executor) until Netty closed the
 * connection. With admission on both already passed.
 */
class HealthChecksGrpcTest {

    /** Not a speed: the bound after which an unanswered check fails the test instead of hanging it. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    @Nested
    class AdmissionOff extends WhileEveryCarrierIsHeld {
    }

    @Nested
    @TestPropertySource(properties = "tandem.admission.enabled=true")
    class AdmissionOn extends WhileEveryCarrierIsHeld {
    }

    /** The rule, for one admission setting; each setting is a context of its own, with its own extra port. */
    abstract static class WhileEveryCarrierIsHeld extends GrpcIntegrationTest {

        /** Called as each context starts: both stay open in the test context cache, so each has its own port. */
        @DynamicPropertySource
        static void tlsOnTheExtraPort(DynamicPropertyRegistry registry) {
            TlsExtraPort.pick().register(registry);
        }

        @Autowired TlsProperties tls;

        @ParameterizedTest(name = "{0} port")
        @ValueSource(strings = {"plain", "TLS extra"})
        void healthIsAnsweredWhileTheCallsWaitForACarrier(String port) throws Exception {
            ManagedChannel target = port.equals("plain") ? channel : tlsChannel();
            try (HeldCarriers ignored = HeldCarriers.hold()) {
                StatusRuntimeException starved = catchThrowableOfType(StatusRuntimeException.class,
                        () -> StudyGroupServiceGrpc.newBlockingStub(target).withDeadlineAfter(2, TimeUnit.SECONDS)
                                .getGroup(GetGroupRequest.newBuilder().setId(2).build()));
                assertThat(starved.getStatus().getCode()).as("an API call while the carriers are held")
                        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);

                HealthCheckResponse health = HealthGrpc.newBlockingStub(target)
                        .withDeadlineAfter(BOUND.toSeconds(), TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance());
                assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
            } finally {
                if (target != channel) {
                    target.shutdownNow().awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS);
                }
            }
        }

        private ManagedChannel tlsChannel() throws IOException {
            return Grpc.newChannelBuilderForAddress("127.0.0.1", tls.extraPort(), TlsChannelCredentials.newBuilder()
                    .trustManager(new File(tls.certificate())).build()).build();
        }
    }
}
