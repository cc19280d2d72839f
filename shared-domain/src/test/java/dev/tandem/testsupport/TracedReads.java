package dev.tandem.testsupport;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.test.context.DynamicPropertyRegistry;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tracing scenario both wires run (TracingRestTest, TracingGrpcTest): a GetGroup that carries a
 * caller's W3C traceparent, first cold (the cache was just flushed) and then warm, and the spans the
 * service exported over OTLP to the test's {@link OtlpReceiver}. The cold read's trace must be the
 * caller's, with the wire's server span under the caller's span and beneath it the shared service,
 * L1 (a miss, then filled), L2 (a miss, then filled) and the SQL; the warm read's an L1 hit and no
 * span below it. A log line written while the cold read ran carries its trace id.
 */
public final class TracedReads {

    /** The attributes the printed tree shows. */
    public static final List<String> SHOWN = List.of("tandem.cache.result", "tandem.cache.fill", "jdbc.query[0]");

    private static final Duration EXPORTED_WITHIN = Duration.ofSeconds(30);

    /**
     * The receiver every traced test context of this JVM exports to: one for the run (its server
     * thread ends with the test JVM), so that contexts cached between test classes keep a live endpoint.
     */
    private static final OtlpReceiver RECEIVER = new OtlpReceiver();

    /** One wire's GetGroup, sent with {@code traceparent} as its W3C header (REST) or metadata entry (gRPC). */
    @FunctionalInterface
    public interface GetGroup {
        void send(long groupId, String traceparent);
    }

    /** A caller's span: a fresh trace id and span id, sampled. */
    record Caller(String traceId, String spanId) {

        static Caller random() {
            HexFormat hex = HexFormat.of();
            byte[] trace = new byte[16];
            byte[] span = new byte[8];
            ThreadLocalRandom.current().nextBytes(trace);
            ThreadLocalRandom.current().nextBytes(span);
            return new Caller(hex.formatHex(trace), hex.formatHex(span));
        }

        String traceparent() {
            return "00-" + traceId + "-" + spanId + "-01";
        }
    }

    private TracedReads() {
    }

    /** For a test's {@code @DynamicPropertySource}: the service under test exports its spans to the receiver. */
    public static void exportToReceiver(DynamicPropertyRegistry properties) {
        properties.add("management.opentelemetry.tracing.export.otlp.endpoint", RECEIVER::endpoint);
    }

    /**
     * Runs the scenario on one wire; {@code serverSpan} is the name its server span has. Returns the
     * cold read's tree as text.
     */
    public static String coldThenWarm(GetGroup wire, String serverSpan, long groupId, CapturedOutput output) {
        OtlpReceiver receiver = RECEIVER;
        Caller cold = Caller.random();
        wire.send(groupId, cold.traceparent());
        List<OtlpReceiver.Span> trace = receiver.awaitTrace(cold.traceId(), EXPORTED_WITHIN, hasServerSpan());
        String tree = OtlpReceiver.tree(trace, SHOWN);
        System.out.println("cold GetGroup " + groupId + ":\n" + tree);

        OtlpReceiver.Span server = only(trace, s -> s.kind().equals("SERVER"), "the server span", tree);
        assertThat(server.name()).as(tree).isEqualTo(serverSpan);
        assertThat(server.parentSpanId()).as("the server span's parent is the caller's span\n" + tree)
                .isEqualTo(cold.spanId());
        OtlpReceiver.Span service = child(trace, server, "GroupService#get", tree);
        OtlpReceiver.Span l1 = child(trace, service, "l1 group", tree);
        assertThat(l1.attribute("tandem.cache.result")).as(tree).isEqualTo("miss");
        assertThat(l1.attribute("tandem.cache.fill")).as(tree).isEqualTo("true");
        OtlpReceiver.Span l2 = child(trace, l1, "l2 group", tree);
        assertThat(l2.attribute("tandem.cache.result")).as(tree).isEqualTo("miss");
        assertThat(l2.attribute("tandem.cache.fill")).as(tree).isEqualTo("true");
        assertThat(descendants(trace, l2)).as("the SQL under L2\n" + tree)
                .anySatisfy(span -> assertThat(span.attribute("jdbc.query[0]")).containsIgnoringCase("from study_groups"));
        assertThat(output.getOut().lines().filter(line -> line.contains(cold.traceId())))
                .as("log lines with the cold read's trace id").isNotEmpty();

        Caller warm = Caller.random();
        wire.send(groupId, warm.traceparent());
        List<OtlpReceiver.Span> warmTrace = receiver.awaitTrace(warm.traceId(), EXPORTED_WITHIN, hasServerSpan());
        String warmTree = OtlpReceiver.tree(warmTrace, SHOWN);
        System.out.println("warm GetGroup " + groupId + ":\n" + warmTree);
        OtlpReceiver.Span warmServer = only(warmTrace, s -> s.kind().equals("SERVER"), "the server span", warmTree);
        OtlpReceiver.Span warmL1 = child(warmTrace, child(warmTrace, warmServer, "GroupService#get", warmTree),
                "l1 group", warmTree);
        assertThat(warmL1.attribute("tandem.cache.result")).as(warmTree).isEqualTo("hit");
        assertThat(descendants(warmTrace, warmL1)).as("nothing below an L1 hit\n" + warmTree).isEmpty();
        return tree;
    }

    private static Predicate<List<OtlpReceiver.Span>> hasServerSpan() {
        // The server span ends last and the exporter sends spans in the order they end.
        return spans -> spans.stream().anyMatch(s -> s.kind().equals("SERVER"));
    }

    private static OtlpReceiver.Span only(List<OtlpReceiver.Span> trace, Predicate<OtlpReceiver.Span> which,
                                          String what, String tree) {
        List<OtlpReceiver.Span> found = trace.stream().filter(which).toList();
        assertThat(found).as(what + "\n" + tree).hasSize(1);
        return found.getFirst();
    }

    private static OtlpReceiver.Span child(List<OtlpReceiver.Span> trace, OtlpReceiver.Span parent, String name,
                                           String tree) {
        return only(trace, s -> s.parentSpanId().equals(parent.spanId()) && s.name().equals(name),
                "one span " + name + " under " + parent.name(), tree);
    }

    private static List<OtlpReceiver.Span> descendants(List<OtlpReceiver.Span> trace, OtlpReceiver.Span root) {
        List<OtlpReceiver.Span> children = trace.stream().filter(s -> s.parentSpanId().equals(root.spanId())).toList();
        return children.stream().flatMap(c -> java.util.stream.Stream.concat(java.util.stream.Stream.of(c),
                descendants(trace, c).stream())).toList();
    }
}
