package dev.tandem.admission;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The admission rule, where it lives: what is admitted, what is refused and how, how the limit moves. */
class AdmissionControlTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicLong nanos = new AtomicLong();

    private AdmissionControl control(AdmissionProperties.Algorithm algorithm, int initial, int min, int max) {
        return new AdmissionControl(new AdmissionProperties(true, algorithm, initial, min, max, Duration.ofSeconds(2)),
                meters, nanos::get);
    }

    @Test
    void aFixedLimitAdmitsThatManyAtOnceAndAnotherOnlyOnceOneHasEnded() {
        AdmissionControl control = control(AdmissionProperties.Algorithm.FIXED, 2, 1, 2);
        AdmissionControl.Permit first = control.tryAdmit();
        AdmissionControl.Permit second = control.tryAdmit();

        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        assertThat(control.inFlight()).isEqualTo(2);
        assertThat(control.tryAdmit()).as("a third while two run").isNull();

        first.completed();
        assertThat(control.tryAdmit()).as("once one has ended").isNotNull();
        assertThat(meters.get("tandem.admission.refused").counter().count()).isEqualTo(1);
        assertThat(meters.get("tandem.admission.limit").gauge().value()).isEqualTo(2);
        assertThat(meters.get("tandem.admission.in.flight").gauge().value()).isEqualTo(2);
    }

    @Test
    void everyWayARequestEndsGivesItsPermitBack() {
        AdmissionControl control = control(AdmissionProperties.Algorithm.FIXED, 1, 1, 1);
        control.tryAdmit().completed();
        control.tryAdmit().ignored();
        control.tryAdmit().dropped();

        assertThat(control.inFlight()).isZero();
        assertThat(control.tryAdmit()).isNotNull();
    }

    @Test
    void aRefusalIsUnavailableWithTheDelayToWaitAndTheLimitThatWasReached() {
        AdmissionControl control = control(AdmissionProperties.Algorithm.FIXED, 3, 1, 3);

        DomainException refusal = control.refusal();

        assertThat(refusal.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(refusal.retryAfter()).contains(Duration.ofSeconds(2));
        assertThat(refusal.metadata()).containsEntry("limit", "3");
        assertThat(refusal.getMessage()).contains("limit of 3 requests in flight");
    }

    @Test
    void aKeptRefusalIsMadeOncePerLimitAndNamesTheLimitItIsGivenAt() {
        AdmissionControl control = control(AdmissionProperties.Algorithm.GRADIENT, 100, 20, 100);
        AtomicInteger made = new AtomicInteger();
        Supplier<String> answer = control.keptRefusal(refusal -> {
            made.incrementAndGet();
            return refusal.getMessage() + " " + refusal.metadata();
        });
        runConcurrently(control, 100, Duration.ofNanos(40_000), 20);

        String atFirst = answer.get();
        assertThat(answer.get()).as("again at the same limit").isSameAs(atFirst);
        assertThat(atFirst).contains("limit of 100 requests", "limit=100");
        assertThat(made).hasValue(1);

        runConcurrently(control, control.limit(), Duration.ofMillis(20), 3);
        int fallen = control.limit();
        assertThat(fallen).isLessThan(100);
        assertThat(answer.get()).as("once the limit has fallen").contains("limit of " + fallen + " requests", "limit=" + fallen);
        assertThat(made).hasValue(2);
    }

    @Test
    void switchedOffEveryRequestIsAdmitted() {
        AdmissionControl control = new AdmissionControl(
                new AdmissionProperties(false, null, 0, 0, 0, null), meters, nanos::get);
        for (int i = 0; i < 10_000; i++) {
            assertThat(control.tryAdmit()).isNotNull();
        }
        assertThat(control.limit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(meters.find("tandem.admission.limit").gauge()).as("no limit to report").isNull();
    }

    /**
     * Gradient2 as configured here: every request's latency counts (none is too fast, a warm read
     * takes tens of microseconds), the limit falls when latency jumps, not below min-limit, and
     * climbs back once latency is steady again.
     */
    @Test
    void theGradientLimitFallsWhenLatencyJumpsAndClimbsBackWhenItSettles() {
        AdmissionControl control = control(AdmissionProperties.Algorithm.GRADIENT, 100, 20, 100);
        runConcurrently(control, 100, Duration.ofNanos(40_000), 20);
        assertThat(control.limit()).as("steady 40-µs requests").isEqualTo(100);

        runConcurrently(control, control.limit(), Duration.ofMillis(20), 3);
        int fallen = control.limit();
        assertThat(fallen).as("after latency jumped 500-fold").isLessThan(100).isGreaterThanOrEqualTo(20);
        List<AdmissionControl.Permit> burst = admitAll(control, 100);
        assertThat(burst).as("admitted of 100 at once").hasSize(fallen);
        burst.forEach(AdmissionControl.Permit::ignored);

        for (int round = 0; round < 200 && control.limit() < 100; round++) {
            runConcurrently(control, control.limit(), Duration.ofMillis(20), 1);
        }
        assertThat(control.limit()).as("latency steady again, if high").isEqualTo(100);
    }

    /**
     * Vegas as configured here: the limit falls while the queue it estimates from the latency grows,
     * and, as min-limit promises for every adaptive algorithm, not below min-limit (Vegas itself
     * stops at 1). Vegas forgets the lowest latency it has seen after a random 15 to 30 times the
     * limit in requests (a probe), and then takes the high latency for the normal one: the steady
     * phase is kept short, so no probe comes before the limit has had its fall.
     */
    @Test
    void theVegasLimitFallsWhenLatencyJumpsAndNotBelowMinLimit() {
        AdmissionControl control = control(AdmissionProperties.Algorithm.VEGAS, 100, 60, 100);
        runConcurrently(control, 100, Duration.ofNanos(40_000), 5);
        assertThat(control.limit()).as("steady 40-µs requests").isEqualTo(100);

        runConcurrently(control, control.limit(), Duration.ofMillis(20), 1);
        assertThat(control.limit()).as("after latency jumped 500-fold (Vegas alone fell to about 48)").isEqualTo(60);
    }

    @Test
    void aLimitOutsideItsBoundsIsRefusedAtStartUp() {
        assertThatThrownBy(() -> new AdmissionProperties(true, null, 10, 50, 40, null))
                .hasMessageContaining("tandem.admission.min-limit");
        assertThatThrownBy(() -> new AdmissionProperties(true, null, 500, 20, 100, null))
                .hasMessageContaining("tandem.admission.initial-limit");
        assertThatThrownBy(() -> new AdmissionProperties(true, null, 0, 0, 0, Duration.ZERO))
                .hasMessageContaining("tandem.admission.retry-after");
    }

    /** {@code rounds} times: {@code concurrency} requests start together and end {@code latency} later. */
    private void runConcurrently(AdmissionControl control, int concurrency, Duration latency, int rounds) {
        for (int round = 0; round < rounds; round++) {
            List<AdmissionControl.Permit> running = admitAll(control, concurrency);
            nanos.addAndGet(latency.toNanos());
            running.forEach(AdmissionControl.Permit::completed);
        }
    }

    private List<AdmissionControl.Permit> admitAll(AdmissionControl control, int tries) {
        List<AdmissionControl.Permit> admitted = new ArrayList<>();
        for (int i = 0; i < tries; i++) {
            AdmissionControl.Permit permit = control.tryAdmit();
            if (permit != null) {
                admitted.add(permit);
            }
        }
        return admitted;
    }
}
