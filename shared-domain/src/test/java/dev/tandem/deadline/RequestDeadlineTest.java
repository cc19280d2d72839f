package dev.tandem.deadline;

import dev.tandem.error.DomainException;
import dev.tandem.error.ErrorCode;
import dev.tandem.limits.LimitsProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link RequestDeadline#await}: a wait for another request's work (a cache load of the same key)
 * that ends with this request. Where a cache reader uses it: CacheBehaviourTest.
 */
class RequestDeadlineTest {

    private final RequestDeadlines deadlines = new RequestDeadlines(LimitsProperties.defaults());

    @AfterEach
    void stop() {
        deadlines.destroy();
    }

    @Test
    void anActionAtTheDeadlineRunsOnceItHasPassedUnlessCancelledFirst() throws Exception {
        CompletableFuture<Boolean> ran = new CompletableFuture<>();
        try (RequestDeadline deadline = deadlines.open(Duration.ofMillis(50))) {
            deadline.atDeadline(() -> ran.complete(deadline.expired()));
            assertThat(ran.get(30, TimeUnit.SECONDS)).as("run, and only once the deadline had passed").isTrue();
        }
        CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
        try (RequestDeadline deadline = deadlines.open(Duration.ofMillis(100))) {
            deadline.atDeadline(() -> cancelled.complete(true)).cancel(false);
            Thread.sleep(300);
            assertThat(cancelled).as("a cancelled action never runs").isNotDone();
        }
    }

    @Test
    void aCancelledRequestStopsWaitingAtOnce() throws Exception {
        CompletableFuture<String> neverDone = new CompletableFuture<>();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        try (RequestDeadline deadline = deadlines.open(Duration.ofMinutes(5))) {
            Thread waiter = Thread.ofPlatform().start(() -> {
                Throwable thrown = catchThrowable(() -> deadline.await(neverDone));
                outcome.complete(Thread.currentThread().isInterrupted() ? new AssertionError("the interrupt leaked") : thrown);
            });
            while (waiter.getState() != Thread.State.TIMED_WAITING) { // in the wait, not before it
                Thread.onSpinWait();
            }
            deadline.cancel();
            assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOfSatisfying(DomainException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
                assertThat(e.getMessage()).contains("cancelled");
            });
        }
    }

    @Test
    void theAwaitedWorksResultOrFailureIsWhatTheWaiterGets() {
        try (RequestDeadline deadline = deadlines.open(Duration.ofSeconds(30))) {
            CompletableFuture<String> later = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS).execute(() -> later.complete("loaded"));
            assertThat(deadline.await(later)).isEqualTo("loaded");

            CompletableFuture<String> failed = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS)
                    .execute(() -> failed.completeExceptionally(new IllegalStateException("the load failed")));
            assertThat(catchThrowable(() -> deadline.await(failed))).isInstanceOf(CompletionException.class)
                    .cause().hasMessage("the load failed");
        }
    }

    @Test
    void anInterruptFromElsewhereIsKept() {
        try (RequestDeadline deadline = deadlines.open(Duration.ofSeconds(30))) {
            Thread.currentThread().interrupt();
            Throwable thrown = catchThrowable(() -> deadline.await(new CompletableFuture<>()));
            assertThat(Thread.interrupted()).as("the interrupt is still set (and cleared here)").isTrue();
            assertThat(thrown).isInstanceOf(DomainException.class);
        }
    }
}
