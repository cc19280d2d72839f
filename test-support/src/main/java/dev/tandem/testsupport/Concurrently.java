package dev.tandem.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Starts tasks together (behind one gate) so that they really race, and collects their outcomes. */
public final class Concurrently {

    private Concurrently() {
    }

    /** Each task's result or the exception it threw, in task order. */
    public static List<Object> run(List<? extends Callable<?>> tasks) throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newFixedThreadPool(tasks.size())) {
            List<Future<Object>> futures = new ArrayList<>();
            for (Callable<?> task : tasks) {
                futures.add(pool.submit(() -> {
                    gate.await();
                    try {
                        return task.call();
                    } catch (Exception e) {
                        return e;
                    }
                }));
            }
            gate.countDown();
            List<Object> outcomes = new ArrayList<>();
            for (Future<Object> future : futures) {
                try {
                    outcomes.add(future.get(60, TimeUnit.SECONDS));
                } catch (Exception e) {
                    throw new AssertionError("a concurrent task did not finish", e);
                }
            }
            return outcomes;
        }
    }
}
