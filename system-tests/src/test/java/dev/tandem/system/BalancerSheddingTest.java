package dev.tandem.system;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.util.JsonFormat;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.Group;
import dev.tandem.testsupport.Await;
import dev.tandem.testsupport.Http1Response;
import dev.tandem.testsupport.KeepAliveConnection;
import dev.tandem.testsupport.LocalBalancer;
import dev.tandem.testsupport.RowLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compose balancer's load shedding (deploy/compose/nginx.conf, README "Under overload"), run
 * in front of the real service jars with its REST in-flight limit at 1: while an update waits in
 * the REST instance for a row lock the test holds, the balancer answers other REST requests itself,
 * 503 with the problem a replica's own admission control answers (code UNAVAILABLE, Retry-After)
 * on a connection it keeps; the update is not lost and, once it is through, requests pass again.
 * The event streams are outside the limit, and gRPC calls pass through the balancer.
 */
@ExtendWith(BothServices.Extension.class)
class BalancerSheddingTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void overItsLimitTheBalancerRefusesWithTheServicesProblemOnAKeptConnectionAndLosesNothing(BothServices services)
            throws Exception {
        Group group = services.grpc.createGroup(CreateGroupRequest.newBuilder().setName("Shed around")
                .setSubject("history").setDescription("Updated behind the balancer").setCapacity(5).setOwnerId(1).build());
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (LocalBalancer balancer = LocalBalancer.start(services.restPort, services.grpcPort, 1)) {
            String base = "http://127.0.0.1:" + balancer.restPort + "/api/v1/groups/" + group.getId();

            CompletableFuture<HttpResponse<String>> update;
            try (RowLock lock = services.database.lockGroup(group.getId())) {
                update = client.sendAsync(HttpRequest.newBuilder(URI.create(base))
                        .header("Authorization", "Bearer " + Tokens.WRITER)
                        .header("Content-Type", "application/json")
                        .method("PATCH", HttpRequest.BodyPublishers.ofString("""
                                {"group":{"name":"Renamed once through"},"updateMask":"name","expectedVersion":1}"""))
                        .build(), HttpResponse.BodyHandlers.ofString());
                Await.until("the update waits in the instance for the row lock", BOUND, services.database::someoneWaitsForGroupLock);

                try (KeepAliveConnection connection = KeepAliveConnection.open(balancer.restPort, BOUND)) {
                    for (int attempt = 1; attempt <= 2; attempt++) {
                        Http1Response refused = connection.exchange("GET", "/api/v1/groups/" + group.getId(),
                                List.of("Accept: application/json"), null);
                        assertThat(refused.status()).as("attempt %d on one connection", attempt).isEqualTo(503);
                        assertThat(refused.headers()).containsEntry("content-type", "application/problem+json")
                                .containsEntry("retry-after", "1")
                                .doesNotContainEntry("connection", "close");
                        Struct.Builder problem = json(refused.bodyText(), Struct.newBuilder());
                        assertThat(problem.getFieldsOrThrow("status").getNumberValue()).isEqualTo(503);
                        assertThat(problem.getFieldsOrThrow("code").getStringValue()).isEqualTo("UNAVAILABLE");
                        assertThat(problem.getFieldsOrThrow("title").getStringValue()).isEqualTo("Service Unavailable");
                        assertThat(problem.getFieldsOrThrow("detail").getStringValue()).contains("retry after");
                    }
                }
                // A watcher holds its stream open for as long as it likes, so the events route is
                // outside the limit: the instance answers it even now. (These instances run without
                // a cache, so watching is UNIMPLEMENTED there: 501, the instance's own answer.)
                HttpResponse<String> watch = client.send(HttpRequest.newBuilder(URI.create(base + "/events"))
                        .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofString());
                assertThat(watch.statusCode()).as(watch.body()).isEqualTo(501);
                assertThat(watch.body()).contains("UNIMPLEMENTED");
                assertThat(update).as("the admitted update still waits for the lock").isNotDone();
            }
            HttpResponse<String> updated = update.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
            assertThat(services.database.value("SELECT name FROM study_groups WHERE id = ?", group.getId()))
                    .as("the update behind the refusals").isEqualTo("Renamed once through");
            HttpResponse<String> read = client.send(HttpRequest.newBuilder(URI.create(base)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(read.statusCode()).as("through again once the update is").isEqualTo(200);
            assertThat(json(read.body(), Group.newBuilder()).getName()).isEqualTo("Renamed once through");

            try (GrpcWire throughBalancer = new GrpcWire(balancer.grpcPort)) {
                assertThat(throughBalancer.getGroup(GetGroupRequest.newBuilder().setId(group.getId()).build()).getName())
                        .as("a gRPC call through the balancer").isEqualTo("Renamed once through");
            }
            assertThat(balancer.log()).as("nginx's log: refusals are not errors").doesNotContain("[error]");
        }
    }

    /** A JSON body read into a message (a problem into a Struct, a group into tandem.v1.Group). */
    private static <B extends Message.Builder> B json(String body, B into) throws InvalidProtocolBufferException {
        JsonFormat.parser().ignoringUnknownFields().merge(body, into);
        return into;
    }
}
