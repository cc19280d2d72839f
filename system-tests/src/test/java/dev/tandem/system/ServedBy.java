package dev.tandem.system;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Which instance answered how many requests, per phase of a test ("before", "after", ...): the
 * evidence that the balancing really spread the load over every instance. Instances are named by
 * wire and port, e.g. {@code rest:40123}.
 */
final class ServedBy {

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> totals = new ConcurrentHashMap<>();
    private volatile String phase = "start";

    void phase(String phase) {
        this.phase = phase;
    }

    void record(String wire, int port) {
        String instance = wire + ":" + port;
        counts.computeIfAbsent(phase + " " + instance, k -> new LongAdder()).increment();
        totals.computeIfAbsent(instance, k -> new LongAdder()).increment();
    }

    /** Requests {@code wire:port} answered during {@code phase}. */
    long count(String phase, String wire, int port) {
        LongAdder n = counts.get(phase + " " + wire + ":" + port);
        return n == null ? 0 : n.sum();
    }

    /** Requests {@code wire:port} answered so far, in any phase. */
    long total(String wire, int port) {
        LongAdder n = totals.get(wire + ":" + port);
        return n == null ? 0 : n.sum();
    }

    @Override
    public String toString() {
        Map<String, Long> sorted = new TreeMap<>();
        counts.forEach((k, v) -> sorted.put(k, v.sum()));
        return sorted.toString();
    }
}
