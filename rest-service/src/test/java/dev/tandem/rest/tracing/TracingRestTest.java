package dev.tandem.rest.tracing;

import dev.tandem.seed.SeedData;
import dev.tandem.testsupport.SeededRows;
import dev.tandem.testsupport.TracedReads;
import dev.tandem.testsupport.UseTestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * Tracing on the REST wire: the service runs with tracing on, exporting to a receiver this test
 * runs, and a GetGroup carrying a W3C traceparent header gives the span tree {@link TracedReads}
 * expects (the same scenario as the gRPC wire's).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "tandem.tracing.enabled=true",
        "management.opentelemetry.tracing.export.schedule-delay=100ms",
        // A log line inside the cold read (its SQL), to show that log lines carry the trace id.
        "logging.level.org.springframework.jdbc.core.JdbcTemplate=debug"})
@AutoConfigureRestTestClient
@UseTestDatabase
@ExtendWith(OutputCaptureExtension.class)
class TracingRestTest {


    @DynamicPropertySource
    static void exportToReceiver(DynamicPropertyRegistry properties) {
        TracedReads.exportToReceiver(properties);
    }

    @Autowired RestTestClient http;
    @Autowired SeedData seed;
    @Autowired JdbcClient jdbc;

    @Test
    void aGetGroupIsOneTraceFromTheHandlerToTheSql(CapturedOutput output) {
        seed.reset(1);
        TracedReads.coldThenWarm((id, traceparent) -> http.get().uri("/api/v1/groups/{id}", id)
                        .header("traceparent", traceparent).exchange().expectStatus().isOk(),
                "http get /api/v1/groups/{id}", SeededRows.groupWithRoom(jdbc), output);
    }
}
