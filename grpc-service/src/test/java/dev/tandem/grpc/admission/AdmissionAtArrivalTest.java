package dev.tandem.grpc.admission;

import io.grpc.Context;
import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** How a call that ended unanswered is taken: its deadline met a limit here, or its client went away. */
class AdmissionAtArrivalTest {

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    /**
     * The client's own deadline cancels the call a little before the server's timer fires (the server
     * counts from when the call arrived). Before the skew, such a cancel was a client gone away: a CI
     * run's drop test saw no drop.
     */
    @Test
    void aCancelArrivingJustBeforeTheServersDeadlineIsTheDeadline() {
        Context.CancellableContext call = Context.ROOT.withDeadlineAfter(20, TimeUnit.MILLISECONDS, timers);
        try {
            assertThat(AdmissionAtArrival.cancelled(call)).isEqualTo(Status.DEADLINE_EXCEEDED);
        } finally {
            call.cancel(null);
        }
    }

    @Test
    void aCancelWellBeforeTheDeadlineIsAClientGoneAway() {
        Context.CancellableContext call = Context.ROOT.withDeadlineAfter(10, TimeUnit.SECONDS, timers);
        try {
            assertThat(AdmissionAtArrival.cancelled(call)).isNull();
        } finally {
            call.cancel(null);
        }
        assertThat(AdmissionAtArrival.cancelled(Context.ROOT)).as("no deadline").isNull();
    }
}
