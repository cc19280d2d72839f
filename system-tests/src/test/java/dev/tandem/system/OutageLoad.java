package dev.tandem.system;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.tandem.auth.DevTokens;
import dev.tandem.proto.v1.CreateGroupRequest;
import dev.tandem.proto.v1.CreateUserRequest;
import dev.tandem.proto.v1.GetGroupRequest;
import dev.tandem.proto.v1.ListGroupsRequest;
import dev.tandem.proto.v1.StudyGroupServiceGrpc;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * MysqlOutageTest's load: a reader and a writer per wire, each one request at a time with a short
 * pause, until stopped, every answer recorded as an {@link Attempt}. An answer is either success or
 * the one failure an outage may give (REST: 503 problem+json UNAVAILABLE with a Retry-After in
 * whole seconds; gRPC: UNAVAILABLE with a RetryInfo), with whether the commit outcome was unknown;
 * anything else is a violation. Writes create groups (of {@code subject}) and users under unique
 * keys, so the database can be checked against the answers afterwards.
 */
final class OutageLoad {

    private final int restPort;
    private final StudyGroupServiceGrpc.StudyGroupServiceBlockingStub grpcApi;
    private final String subject;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Every answer, in the order they came. */
    final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
    /** Answers that were neither success nor the outage's failure, as text. */
    final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    OutageLoad(int restPort, StudyGroupServiceGrpc.StudyGroupServiceBlockingStub grpcApi, String subject) {
        this.restPort = restPort;
        this.grpcApi = grpcApi;
        this.subject = subject;
    }

    enum Kind { CREATE_GROUP, CREATE_USER, READ }

    /** One request and how it ended: ok, or failed with this code (and whether its commit outcome was unknown). */
    record Attempt(String wire, Kind kind, String key, boolean ok, String code, boolean commitOutcomeUnknown) {
    }

    private static final class Failed extends Exception {
        final String code;
        final boolean commitOutcomeUnknown;

        Failed(String code, boolean commitOutcomeUnknown) {
            super(code, null, false, false);
            this.code = code;
            this.commitOutcomeUnknown = commitOutcomeUnknown;
        }
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    private void restWrite(String path, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + DevTokens.devWriter())
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        restOutcome(http.send(request, HttpResponse.BodyHandlers.ofString()), 201);
    }

    private void restRead(String path) throws Exception {
        restOutcome(restGet(path), 200);
    }

    /** Success, or a 503 problem+json UNAVAILABLE with a Retry-After of whole seconds; anything else is a violation. */
    private static void restOutcome(HttpResponse<String> response, int success) throws Failed {
        if (response.statusCode() == success) {
            return;
        }
        String type = response.headers().firstValue("Content-Type").orElse("");
        String retryAfter = response.headers().firstValue("Retry-After").orElse("");
        if (response.statusCode() == 503 && type.startsWith("application/problem+json")
                && response.body().contains("\"code\":\"UNAVAILABLE\"") && retryAfter.matches("[1-9][0-9]*")) {
            throw new Failed("UNAVAILABLE", response.body().contains("\"commitOutcome\":\"unknown\""));
        }
        throw new AssertionError("answered " + response.statusCode() + " (" + type + ", Retry-After '" + retryAfter
                + "'): " + response.body());
    }

    /** Success, or UNAVAILABLE with a RetryInfo detail; anything else is a violation. */
    private static void grpc(Runnable call) throws Failed {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            com.google.rpc.Status status = StatusProto.fromThrowable(e);
            boolean retryInfo = false;
            boolean commitUnknown = false;
            if (status != null) {
                for (Any detail : status.getDetailsList()) {
                    try {
                        if (detail.is(RetryInfo.class)) {
                            retryInfo = detail.unpack(RetryInfo.class).getRetryDelay().getSeconds() > 0;
                        } else if (detail.is(ErrorInfo.class)) {
                            commitUnknown = "unknown".equals(detail.unpack(ErrorInfo.class).getMetadataMap().get("commitOutcome"));
                        }
                    } catch (InvalidProtocolBufferException bad) {
                        throw new AssertionError("undecodable status detail", bad);
                    }
                }
            }
            if (e.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE && retryInfo) {
                throw new Failed("UNAVAILABLE", commitUnknown);
            }
            throw new AssertionError("failed with " + e.getStatus() + (retryInfo ? "" : " without RetryInfo"));
        }
    }

    void start() {
        for (String wire : List.of("REST", "gRPC")) {
            threads.add(Thread.ofPlatform().name("outage-writer-" + wire).start(() -> write(wire)));
            threads.add(Thread.ofPlatform().name("outage-reader-" + wire).start(() -> read(wire)));
        }
    }

    void stop() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(Duration.ofSeconds(60));
        }
    }

    int okWrites(String wire) {
        return (int) attempts.stream().filter(a -> a.wire.equals(wire) && a.kind != Kind.READ && a.ok).count();
    }

    int failedWrites(String wire) {
        return (int) attempts.stream().filter(a -> a.wire.equals(wire) && a.kind != Kind.READ && !a.ok).count();
    }

    private void write(String wire) {
        Instant end = Instant.now().plus(Duration.ofMinutes(8));
        for (int i = 0; running.get() && Instant.now().isBefore(end); i++) {
            Kind kind = i % 2 == 0 ? Kind.CREATE_GROUP : Kind.CREATE_USER;
            String key = kind == Kind.CREATE_GROUP ? "outage-" + wire.toLowerCase() + "-g" + i
                    : "outage-" + wire.toLowerCase() + "-u" + i + "@outage.test";
            long owner = 1 + i % 100;
            attempt(wire, kind, key, () -> {
                if (kind == Kind.CREATE_GROUP) {
                    createGroup(wire, key, owner);
                } else {
                    createUser(wire, key);
                }
            });
            pause();
        }
    }

    private void read(String wire) {
        Random random = new Random(wire.hashCode());
        Instant end = Instant.now().plus(Duration.ofMinutes(8));
        for (int i = 0; running.get() && Instant.now().isBefore(end); i++) {
            long id = 1 + random.nextInt(50);
            boolean list = i % 3 == 0;
            attempt(wire, Kind.READ, list ? "list" : "group " + id, () -> {
                if (list) {
                    listGroups(wire);
                } else {
                    getGroup(wire, id);
                }
            });
            pause();
        }
    }

    private void attempt(String wire, Kind kind, String key, Call call) {
        try {
            call.run();
            attempts.add(new Attempt(wire, kind, key, true, "OK", false));
        } catch (Failed failed) {
            attempts.add(new Attempt(wire, kind, key, false, failed.code, failed.commitOutcomeUnknown));
        } catch (Exception | AssertionError e) {
            violations.add(wire + " " + kind + " " + key + ": " + e);
        }
    }

    private void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }

    // ---- REST ----

    private void createGroup(String wire, String name, long owner) throws Exception {
        if (wire.equals("REST")) {
            restWrite("/api/v1/groups", """
                    {"name":"%s","subject":"%s","capacity":5,"ownerId":%d}""".formatted(name, subject, owner));
        } else {
            grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).createGroup(CreateGroupRequest.newBuilder()
                    .setName(name).setSubject(subject).setCapacity(5).setOwnerId(owner).build()));
        }
    }

    private void createUser(String wire, String email) throws Exception {
        if (wire.equals("REST")) {
            restWrite("/api/v1/users", """
                    {"name":"Outage user","email":"%s"}""".formatted(email));
        } else {
            grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).createUser(CreateUserRequest.newBuilder()
                    .setName("Outage user").setEmail(email).build()));
        }
    }

    private void getGroup(String wire, long id) throws Exception {
        if (wire.equals("REST")) {
            restRead("/api/v1/groups/" + id);
        } else {
            grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).getGroup(GetGroupRequest.newBuilder().setId(id).build()));
        }
    }

    private void listGroups(String wire) throws Exception {
        if (wire.equals("REST")) {
            restRead("/api/v1/groups?subject=physics&page_size=5");
        } else {
            grpc(() -> grpcApi.withDeadlineAfter(30, TimeUnit.SECONDS).listGroups(ListGroupsRequest.newBuilder()
                    .setSubject("physics").setPageSize(5).build()));
        }
    }

    HttpResponse<String> restGet(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
