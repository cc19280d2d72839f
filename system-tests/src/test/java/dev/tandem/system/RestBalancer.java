package dev.tandem.system;

import dev.tandem.testsupport.Await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal client-side balancer over REST instances, doing what any L4/L7 balancer does and no
 * more: round robin over the instances it considers in service; an instance leaves when its
 * {@code /actuator/health/readiness} stops answering 200 (polled every {@link #PROBE_INTERVAL}) or
 * when a connection to it is refused before anything was sent, and comes back when readiness
 * answers 200 again. A request that reached a server is never retried: whatever it got (an error
 * status, a reset connection) is its answer. (The JDK client underneath may itself resend a GET
 * once when it finds a pooled connection closed before any answer; it never resends POST or PATCH,
 * so the writes of a load show any connection cut under them.)
 */
final class RestBalancer implements AutoCloseable {

    static final Duration PROBE_INTERVAL = Duration.ofMillis(100);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration NO_INSTANCE_WAIT = Duration.ofSeconds(10);

    /** What one request got, and which instance answered it. */
    record Answer(int port, int status, String body) {
    }

    private static final class Instance {
        final int port;
        volatile boolean inService;

        Instance(int port) {
            this.port = port;
        }
    }

    private final List<Instance> instances;
    private final ServedBy servedBy;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final HttpClient probeClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private final ScheduledExecutorService prober;
    private final AtomicInteger next = new AtomicInteger();

    /** Starts probing; returns once every instance is in service (bounded). */
    RestBalancer(List<Integer> ports, ServedBy servedBy) {
        this.instances = ports.stream().map(Instance::new).toList();
        this.servedBy = servedBy;
        // One probe schedule per instance: a slow answer from one never delays noticing another.
        this.prober = Executors.newScheduledThreadPool(instances.size(),
                Thread.ofPlatform().daemon().name("rest-balancer-probe-", 0).factory());
        for (Instance instance : instances) {
            prober.scheduleWithFixedDelay(() -> probe(instance), 0, PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
        for (Instance instance : instances) {
            awaitInService(instance.port, Duration.ofSeconds(30));
        }
    }

    /**
     * Sends one request to the next instance in service. {@code write} adds the dev write token.
     * Throws {@link UncheckedIOException} when the request failed after it was sent.
     */
    Answer send(String method, String pathAndQuery, String jsonBody, boolean write) {
        Instant giveUp = Instant.now().plus(NO_INSTANCE_WAIT);
        while (true) {
            Instance instance = pick(giveUp);
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.port + pathAndQuery))
                    .timeout(REQUEST_TIMEOUT)
                    .header("Accept", "application/json");
            if (write) {
                request.header("Authorization", "Bearer " + Tokens.WRITER);
            }
            if (jsonBody != null) {
                request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(jsonBody));
            } else {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            }
            try {
                HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
                servedBy.record("rest", instance.port);
                return new Answer(instance.port, response.statusCode(), response.body());
            } catch (ConnectException | HttpConnectTimeoutException notSent) {
                // Nothing reached the server: take the instance out and send the request elsewhere.
                takeOut(instance, "connection refused");
            } catch (IOException e) {
                throw new UncheckedIOException(method + " " + pathAndQuery + " to :" + instance.port + " failed after it was sent", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    boolean inService(int port) {
        return instances.stream().anyMatch(i -> i.port == port && i.inService);
    }

    void awaitInService(int port, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (!inService(port)) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("REST :" + port + " not back in the balancer within " + timeout);
            }
            Await.sleep(20);
        }
    }

    private Instance pick(Instant giveUp) {
        while (true) {
            for (int i = 0; i < instances.size(); i++) {
                Instance candidate = instances.get(Math.floorMod(next.getAndIncrement(), instances.size()));
                if (candidate.inService) {
                    return candidate;
                }
            }
            if (Instant.now().isAfter(giveUp)) {
                throw new IllegalStateException("no REST instance in service for " + NO_INSTANCE_WAIT);
            }
            Await.sleep(20);
        }
    }

    private void probe(Instance instance) {
        boolean ready;
        String why;
        try {
            HttpResponse<String> response = probeClient.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + instance.port + "/actuator/health/readiness"))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            ready = response.statusCode() == 200;
            why = "readiness " + response.statusCode() + " " + response.body();
        } catch (IOException e) {
            ready = false;
            why = "readiness probe failed: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (ready && !instance.inService) {
            instance.inService = true;
            log("REST :" + instance.port + " in service");
        } else if (!ready) {
            takeOut(instance, why);
        }
    }

    private void takeOut(Instance instance, String why) {
        if (instance.inService) {
            instance.inService = false;
            log("REST :" + instance.port + " out of service (" + why + ")");
        }
    }

    private static void log(String message) {
        System.out.println(Instant.now() + " balancer: " + message);
    }

    @Override
    public void close() {
        prober.shutdownNow();
        client.close();
        probeClient.close();
    }
}
