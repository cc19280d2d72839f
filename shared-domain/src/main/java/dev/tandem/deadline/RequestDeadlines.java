package dev.tandem.deadline;

import dev.tandem.limits.LimitsProperties;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * Opens the {@link RequestDeadline} of each request: the client's own deadline (gRPC) or timeout
 * (REST header) when it has one, never later than {@code tandem.limits.request-timeout} from now,
 * so no request holds a thread and a connection longer than that.
 */
@Component
public class RequestDeadlines implements DisposableBean {

    private final Duration requestTimeout;
    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService cancels;

    public RequestDeadlines(LimitsProperties properties) {
        this.requestTimeout = properties.requestTimeout();
        this.timer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("tandem-deadlines").factory());
        // Most requests finish before their deadline: their expiry tasks must not pile up in the queue.
        this.timer.setRemoveOnCancelPolicy(true);
        // Platform threads: a deadline is due most when the instance is saturated, and then a virtual
        // thread would wait for a carrier behind the very requests it is to cut short (as long as
        // they hold the carriers). Cached: idle between deadlines, as many as deadlines fall at once.
        this.cancels = Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name("tandem-deadline-cancel-", 0).factory());
    }

    /**
     * A deadline starting now: {@code clientTimeout} when given and shorter than the server's
     * request timeout, else the request timeout. Zero or negative means already expired.
     */
    public RequestDeadline open(Duration clientTimeout) {
        Duration timeout = clientTimeout == null || clientTimeout.compareTo(requestTimeout) > 0 ? requestTimeout : clientTimeout;
        return new RequestDeadline(System.nanoTime() + timeout.toNanos(), timer, cancels);
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
        cancels.shutdown();
    }
}
