package dev.tandem.testsupport;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver a test runs (what a collector would be): {@code POST /v1/traces} with
 * a protobuf {@code ExportTraceServiceRequest}, as OpenTelemetry's exporter sends it, on a free
 * loopback port. It keeps every span it receives, for a test to find by trace and to print as a tree.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One received span, ids as lowercase hex (as in a W3C traceparent); the parent is "" for a root. */
    public record Span(String traceId, String spanId, String parentSpanId, String name, String kind,
                       long startNanos, long endNanos, Map<String, String> attributes) {

        public String attribute(String key) {
            return attributes.get(key);
        }

        public long durationMicros() {
            return (endNanos - startNanos) / 1000;
        }
    }

    private static final HexFormat HEX = HexFormat.of();

    private final HttpServer server;
    private final List<Span> spans = new CopyOnWriteArrayList<>();

    public OtlpReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/v1/traces", this::receive);
        server.start();
    }

    /** What a service's {@code management.opentelemetry.tracing.export.otlp.endpoint} is set to. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            for (ResourceSpans resource : request.getResourceSpansList()) {
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    scope.getSpansList().forEach(span -> spans.add(new Span(hex(span.getTraceId()),
                            hex(span.getSpanId()), hex(span.getParentSpanId()), span.getName(),
                            span.getKind().name().replace("SPAN_KIND_", ""), span.getStartTimeUnixNano(),
                            span.getEndTimeUnixNano(), attributes(span.getAttributesList()))));
                }
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
        }
    }

    private static String hex(ByteString id) {
        return HEX.formatHex(id.toByteArray());
    }

    private static Map<String, String> attributes(List<KeyValue> attributes) {
        Map<String, String> out = new LinkedHashMap<>();
        for (KeyValue attribute : attributes) {
            AnyValue value = attribute.getValue();
            out.put(attribute.getKey(), switch (value.getValueCase()) {
                case STRING_VALUE -> value.getStringValue();
                case BOOL_VALUE -> String.valueOf(value.getBoolValue());
                case INT_VALUE -> String.valueOf(value.getIntValue());
                case DOUBLE_VALUE -> String.valueOf(value.getDoubleValue());
                default -> value.toString().strip();
            });
        }
        return out;
    }

    /** Every span received so far of {@code traceId}, in start order. */
    public List<Span> trace(String traceId) {
        return spans.stream().filter(s -> s.traceId().equals(traceId))
                .sorted(Comparator.comparingLong(Span::startNanos)).toList();
    }

    /**
     * The spans of {@code traceId} once {@code complete} holds for them (the exporter sends in
     * batches, so a trace arrives in parts); fails after {@code timeout}.
     */
    public List<Span> awaitTrace(String traceId, Duration timeout, Predicate<List<Span>> complete) {
        Await.until("trace " + traceId + " received", timeout, () -> complete.test(trace(traceId)));
        return trace(traceId);
    }

    /**
     * The trace as an indented tree, one span a line with its kind, its duration and the attributes
     * named in {@code shown} (those it has), children in start order under their parent; spans whose parent
     * was not received are roots.
     */
    public static String tree(List<Span> trace, List<String> shown) {
        StringBuilder out = new StringBuilder();
        List<String> ids = trace.stream().map(Span::spanId).toList();
        for (Span span : trace) {
            if (!ids.contains(span.parentSpanId())) {
                render(span, trace, shown, 0, out);
            }
        }
        return out.toString();
    }

    private static void render(Span span, List<Span> trace, List<String> shown, int depth, StringBuilder out) {
        List<String> attributes = new ArrayList<>();
        for (String key : shown) {
            if (span.attributes().containsKey(key)) {
                // One line a span: a multi-line value (SQL) is collapsed and cut.
                String value = span.attribute(key).strip().replaceAll("\\s+", " ");
                attributes.add(key + "=" + (value.length() > 60 ? value.substring(0, 60) + "…" : value));
            }
        }
        out.append("  ".repeat(depth)).append(span.name()).append(" [").append(span.kind().toLowerCase()).append("] ")
                .append(span.durationMicros()).append(" µs");
        if (!attributes.isEmpty()) {
            out.append(' ').append(String.join(" ", attributes));
        }
        out.append('\n');
        for (Span child : trace) {
            if (child.parentSpanId().equals(span.spanId())) {
                render(child, trace, shown, depth + 1, out);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** For a test's failure message: everything received. */
    @Override
    public String toString() {
        return spans.toString();
    }
}
