package dev.tandem.grpc.health;

import dev.tandem.grpc.GrpcIntegrationTest;
import dev.tandem.proto.v1.HelloServiceGrpc;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import dev.tandem.testsupport.Await;
import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * grpc.health.v1 answers for each service of the API by its name, as it does for the server as a
 * whole (""): a client that health-checks the service it calls (grpc-java's and grpc-go's
 * client-side health checking, {@code healthCheckConfig.serviceName}; Envoy's
 * {@code grpc_health_check.service_name}) sends that name, and a NOT_FOUND there marks every
 * instance unhealthy. Failed before: "unknown service tandem.v1.StudyGroupService" (NOT_FOUND),
 * as only "" was registered. A name the server does not serve stays NOT_FOUND, as the protocol says.
 * (That every name turns NOT_SERVING during the shutdown drain is GracefulShutdownTest's.)
 */
class HealthServiceNamesGrpcTest extends GrpcIntegrationTest {

    /**
     * Not a speed (a NOT_FOUND meanwhile is retried): Boot feeds grpc.health.v1 from the actuator health on a schedule (first after
     * spring.grpc.server.health.schedule.delay, 5 s), so a name is registered some seconds after start.
     */
    private static final Duration FIRST_UPDATE = Duration.ofSeconds(30);

    @Autowired List<BindableService> services;

    @Test
    void theServerAndEachServiceOfTheApiAreServingByName() {
        List<String> names = new ArrayList<>(List.of(""));
        services.stream().map(service -> service.bindService().getServiceDescriptor().getName())
                .filter(name -> name.startsWith("tandem.v1.")).forEach(names::add);
        assertThat(names).as("the API's services, as the server binds them")
                .contains(StudyGroupServiceGrpc.SERVICE_NAME, HelloServiceGrpc.SERVICE_NAME);
        for (String name : names) {
            assertThat(Await.value("a health status for '" + name + "'", FIRST_UPDATE, () -> check(name)))
                    .as("'%s'", name).isEqualTo(ServingStatus.SERVING);
        }
    }

    @Test
    void aServiceTheServerDoesNotServeIsNotFound() {
        Await.value("the API's services registered", FIRST_UPDATE, () -> check(StudyGroupServiceGrpc.SERVICE_NAME));
        StatusRuntimeException unknown = catchThrowableOfType(StatusRuntimeException.class,
                () -> check("tandem.v1.NoSuchService"));
        assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }

    private ServingStatus check(String service) {
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(deadlineSeconds(), TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
    }
}
