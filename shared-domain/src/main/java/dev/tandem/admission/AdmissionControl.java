package dev.tandem.admission;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limit.WindowedLimit;
import com.netflix.concurrency.limits.limit.functions.Log10RootIntFunction;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Admission control: at most {@code limit} requests run at once on an instance, and the limit adapts
 * to what the instance can do (Netflix's concurrency-limits, see {@link AdmissionProperties.Algorithm}).
 * A request over the limit is refused at once — 503 + Retry-After on REST, UNAVAILABLE + RetryInfo on
 * gRPC — instead of waiting in a queue until every request is late.
 *
 * <p>Why a concurrency limit and not a queue bound: requests run on virtual threads, so no bounded
 * pool queues them; past saturation they all run at once, each taking a share of the cores, and
 * every one of them gets slower. A limit keeps the number running near what the cores can finish.
 *
 * <p><b>Off by default</b>, because of what the overload bench showed (README, "Under overload").
 * Asked by an interceptor, a permit came only once the call had a thread, after the queue it should
 * keep short, and on gRPC that cut goodput at twice the saturating rate from 2,864 to 335 calls a
 * second. gRPC now asks where a call arrives, before the hand-off ({@code AdmissionAtArrival}):
 * on an instance with CPU of its own that cut the accepted calls' p99 to 0.4× at the same goodput, but
 * next to another busy process on the same core the refusals still cost it most of its goodput.
 * REST asks in a Tomcat valve, before the servlet filters and Spring MVC ({@code AdmissionValve}).
 *
 * <p>The wires ask {@link #tryAdmit()} where a request enters (a Tomcat valve, a server
 * interceptor) and report how it ended on the {@link Permit}. What is never limited is the wires'
 * business too: the actuator and gRPC health (so an instance at its limit still answers its probes
 * and its metrics; that they are not starved of CPU is where they run, README "Under overload"), and
 * long-lived streams (they have their own limit).
 */
public final class AdmissionControl {

    /** A request that was admitted; exactly one of its methods must be called when the request ends. */
    public interface Permit {
        /** It ended normally (whatever its answer): its latency is a sample for the limit. */
        void completed();

        /** It ended without a meaningful latency (the client went away, a failure before any work). */
        void ignored();

        /**
         * It ran into a limit further down (a deadline, an unavailable database): the limit should
         * shrink. Vegas shrinks on it; Gradient2 (the library ignores the drop) takes its latency
         * as a sample, which says as much: a request that waited for the pool's timeout is a long
         * sample, one that met its client's own short deadline a short one, as it was.
         */
        void dropped();
    }

    /** How an admitted request's end was reported, the tag of {@code tandem.admission.ended}. */
    public enum Ending { COMPLETED, IGNORED, DROPPED }

    private static final Permit UNLIMITED = new Permit() {
        @Override
        public void completed() {
        }

        @Override
        public void ignored() {
        }

        @Override
        public void dropped() {
        }
    };

    /** What Vegas's own decrease takes off the limit (VegasLimit.Builder's default: its log10). */
    private static final IntUnaryOperator LOG10 = Log10RootIntFunction.create(0);

    private final AdmissionProperties properties;
    private final @Nullable SimpleLimiter<Void> limiter;
    private final Counter refused;
    private final Counter[] ended = new Counter[Ending.values().length];
    /** Admitted requests whose permit has not gone back yet (see tryAdmit). */
    private final AtomicInteger held = new AtomicInteger();

    public AdmissionControl(AdmissionProperties properties, MeterRegistry meters) {
        this(properties, meters, System::nanoTime);
    }

    /** With the clock the limiter measures latency by (tests drive it by hand). */
    AdmissionControl(AdmissionProperties properties, MeterRegistry meters, LongSupplier nanoClock) {
        this.properties = properties;
        this.limiter = properties.enabled()
                ? SimpleLimiter.newBuilder().named("tandem").limit(limit(properties)).nanoClock(nanoClock).build()
                : null;
        this.refused = Counter.builder("tandem.admission.refused")
                .description("Requests refused because the instance was at its concurrency limit")
                .register(meters);
        for (Ending ending : Ending.values()) {
            ended[ending.ordinal()] = Counter.builder("tandem.admission.ended")
                    .description("Admitted requests by how their end was sampled for the limit: completed (a "
                            + "latency sample), ignored (no sample), dropped (a limit further down)")
                    .tag("sample", ending.name().toLowerCase(Locale.ROOT)).register(meters);
        }
        if (limiter != null) {
            Gauge.builder("tandem.admission.limit", limiter, SimpleLimiter::getLimit)
                    .description("How many requests may run at once now").register(meters);
            Gauge.builder("tandem.admission.in.flight", held, AtomicInteger::get)
                    .description("Requests running now under the limit").register(meters);
        }
    }

    private static Limit limit(AdmissionProperties p) {
        return switch (p.algorithm()) {
            case FIXED -> FixedLimit.of(p.initialLimit());
            case GRADIENT -> windowed(p, Gradient2Limit.newBuilder().initialLimit(p.initialLimit()).minLimit(p.minLimit())
                    .maxConcurrency(p.maxLimit()).build());
            // Vegas has no floor of its own (it stops at 1): its decrease, Vegas's own (the limit less
            // its log10), is floored at min-limit here, the only way its limit goes down.
            case VEGAS -> windowed(p, VegasLimit.newBuilder().initialLimit(p.initialLimit()).maxConcurrency(p.maxLimit())
                    .decreaseFunction(limit -> Math.max(p.minLimit(), limit - LOG10.applyAsInt((int) limit))).build());
        };
    }

    /**
     * The adaptive algorithms see each window's average latency, not every request's. Why: fed one
     * request at a time, Gradient2 reads any request slower than 1.5 times the running average as
     * queueing and takes up to a tenth off the limit for it, while a fast one adds 0.8. A latency
     * with such a tail (say, warm reads now and then held up by a GC pause) then drags the limit
     * down with no queue at all: with a quarter of the requests five times slower than the rest and
     * 60 in flight, it swung between its floor and its ceiling of 100 and refused a third of the
     * requests (AdmissionControlTest). A window's average moves only when latency as a whole moves,
     * which is what a queue does, and at 100 ms a window (the library's shortest, the default of
     * tandem.admission.window) the limit can still halve within a second. No request is too fast to
     * count (the library ignores those under 100 µs by default: most warm reads here).
     */
    private static Limit windowed(AdmissionProperties p, Limit algorithm) {
        return WindowedLimit.newBuilder()
                .minWindowTime(p.window().toNanos(), TimeUnit.NANOSECONDS)
                .maxWindowTime(p.window().toNanos(), TimeUnit.NANOSECONDS)
                .minRttThreshold(0, TimeUnit.NANOSECONDS)
                .build(algorithm);
    }

    /** Whether requests are limited at all: when not, a wire need not ask (nor wrap anything per request). */
    public boolean enabled() {
        return limiter != null;
    }

    /** A permit for one request, or null when the instance is at its limit (then answer {@link #refusal()}). */
    public @Nullable Permit tryAdmit() {
        if (limiter == null) {
            return UNLIMITED;
        }
        Limiter.Listener listener = limiter.acquire(null).orElse(null);
        if (listener == null) {
            refused.increment();
            return null;
        }
        held.incrementAndGet();
        // Each ending is counted, then the limiter told (it gives the permit back), then the request
        // leaves inFlight(): whoever sees inFlight() lower sees the ending counted and can be
        // admitted. The limiter's own count falls before its semaphore is released
        // (SimpleLimiter's listener), so a request made when it read 0 could still be refused (make
        // test, 2026-12-02: AdmissionRestTest's read after the permit was back, 503).
        return new Permit() {
            @Override
            public void completed() {
                ended[Ending.COMPLETED.ordinal()].increment();
                listener.onSuccess();
                held.decrementAndGet();
            }

            @Override
            public void ignored() {
                ended[Ending.IGNORED.ordinal()].increment();
                listener.onIgnore();
                held.decrementAndGet();
            }

            @Override
            public void dropped() {
                ended[Ending.DROPPED.ordinal()].increment();
                listener.onDropped();
                held.decrementAndGet();
            }
        };
    }

    /** What a refused request is answered: UNAVAILABLE (503), retry after {@code retry-after}. */
    public DomainException refusal() {
        return refusal(limit());
    }

    /**
     * A wire's answer to a refused request ({@code toWire} of {@link #refusal()}), made once per limit
     * and reused while the limit keeps its value. Why: past saturation most arrivals are refused, and
     * what a refusal costs is taken from the requests being served (README, "Under overload": at twice
     * the capacity goodput can hold 0.8 of the peak only if a refusal costs under a sixth of a served
     * request). The answer names the limit, which changes far less often than requests are refused.
     * {@code toWire} must make something no request writes into: it is shared by every refusal.
     */
    public <T> Supplier<T> keptRefusal(Function<DomainException, T> toWire) {
        return new KeptRefusal<>(toWire);
    }

    private DomainException refusal(int limit) {
        return new DomainException(ErrorCode.UNAVAILABLE,
                "the service is at its limit of " + limit + " requests in flight; retry after "
                        + properties.retryAfter().toMillis() + " ms",
                List.of(), null, null, properties.retryAfter(), Map.of("limit", String.valueOf(limit)), null);
    }

    private final class KeptRefusal<T> implements Supplier<T> {

        private record Made<T>(int limit, T answer) {
        }

        private final Function<DomainException, T> toWire;
        private volatile @Nullable Made<T> last;

        KeptRefusal(Function<DomainException, T> toWire) {
            this.toWire = toWire;
        }

        @Override
        public T get() {
            int limit = limit();
            Made<T> made = last;
            if (made == null || made.limit() != limit) {
                // Two threads may both make it at a new limit: the same answer twice, no harm.
                made = new Made<>(limit, toWire.apply(refusal(limit)));
                last = made;
            }
            return made.answer();
        }
    }

    /** How many requests may run at once now; {@code Integer.MAX_VALUE} when admission control is off. */
    public int limit() {
        return limiter == null ? Integer.MAX_VALUE : limiter.getLimit();
    }

    /** How many admitted requests have ended so far, as {@code ending} (for tests and diagnostics). */
    public long ended(Ending ending) {
        return (long) ended[ending.ordinal()].count();
    }

    /** How many admitted requests are running now (0 when admission control is off). */
    public int inFlight() {
        return held.get();
    }
}
