package dev.tandem.rest;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What Spring MVC itself does for a warm GetGroup and for the hello-world, without Tomcat, the
 * kernel or the servlet filters: the part of a request the hot path's CPU goal (README, "The hot
 * path against the framework's floor") can still move, measured on its own.
 * <ul>
 *   <li>{@code route}: finding the handler, as {@link DispatcherServlet} does, over the service's
 *       real handler mappings (the actuator's first): {@code /api/v1/hello} is a literal path, one
 *       map lookup; {@code /api/v1/groups/{id}} is matched against every mapping;</li>
 *   <li>{@code dispatch}: the whole {@link DispatcherServlet#service}: the route, the handler's
 *       arguments, the controller with its L1 hit, the conditional-GET advice and the answer written
 *       to an in-memory response.</li>
 * </ul>
 * Each invocation builds its request as the bench's oha does ({@code Accept: application/json}), so
 * both paths pay the same for that. The service runs as it ships (its own database
 * tandem_bench_rest_jmh, seeded at scale 1, the cache in hybrid mode), on a random port that serves
 * only the first request, which initialises the dispatcher. Needs MariaDB and Redis
 * (scripts/servers.sh start). Run: {@code ./mvnw -B -pl rest-service -Pjmh test-compile exec:exec}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
public class DispatchBenchmark {

    @Param({"/api/v1/hello", "/api/v1/groups/7"})
    public String path;

    private ConfigurableApplicationContext context;
    private DispatcherServlet dispatcher;
    private List<HandlerMapping> mappings;

    @Setup(Level.Trial)
    public void start() throws Exception {
        context = new SpringApplicationBuilder(RestApplication.class)
                .run("--server.port=0", "--tandem.db.name=tandem_bench_rest_jmh", "--tandem.seed.mode=if-empty",
                        "--tandem.seed.scale=1", "--tandem.cache.redis.key-prefix=tandem:cache:jmh-rest:",
                        "--spring.main.banner-mode=off", "--logging.level.root=WARN");
        String port = context.getEnvironment().getRequiredProperty("local.server.port");
        try (HttpClient client = HttpClient.newHttpClient()) {
            // the first request initialises the dispatcher (its handler mappings among them)
            HttpResponse<Void> first = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.discarding());
            if (first.statusCode() != 200) {
                throw new IllegalStateException(path + " answered " + first.statusCode());
            }
        }
        dispatcher = context.getBean(DispatcherServlet.class);
        mappings = dispatcher.getHandlerMappings();
    }

    private MockHttpServletRequest request() {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", path);
        request.addHeader("Accept", "application/json");
        return request;
    }

    @Benchmark
    public HandlerExecutionChain route() throws Exception {
        MockHttpServletRequest request = request();
        ServletRequestPathUtils.parseAndCache(request);
        for (HandlerMapping mapping : mappings) {
            HandlerExecutionChain chain = mapping.getHandler(request);
            if (chain != null) {
                return chain;
            }
        }
        throw new IllegalStateException("no handler for " + path);
    }

    @Benchmark
    public MockHttpServletResponse dispatch() throws Exception {
        MockHttpServletResponse response = new BulkWritingResponse();
        dispatcher.service(request(), response);
        if (response.getStatus() != 200) {
            throw new IllegalStateException(path + " answered " + response.getStatus());
        }
        return response;
    }

    /**
     * An in-memory response whose body takes an array in one write, as Tomcat's does. Spring's mock
     * writes an array a byte at a time (its stream overrides only {@code write(int)}, and checks its
     * buffer size on each byte), which made the 659-byte GetGroup body cost about 7 µs here: half of
     * the dispatch, and none of it in the service.
     */
    static final class BulkWritingResponse extends MockHttpServletResponse {

        private final ByteArrayOutputStream body = new ByteArrayOutputStream(1024);
        private final ServletOutputStream stream = new ServletOutputStream() {
            @Override
            public void write(int b) {
                body.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                body.write(bytes, offset, length);
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
                throw new UnsupportedOperationException("blocking writes only");
            }
        };

        @Override
        public ServletOutputStream getOutputStream() {
            return stream;
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }
}
