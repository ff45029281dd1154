package io.ringkv.http.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallerThreadExecutorTest {
    private static final SpinPolicy NO_SPIN = new SpinPolicy(Duration.ZERO, 0);

    /**
     * One producer thread queues many tasks while the caller runs them: they run on the caller,
     * in the order queued, past the two inline places into the overflow and back.
     */
    @Test
    void tasksFromAnotherThreadRunOnTheCallerInTheOrderQueued() throws Exception {
        ExecutorService producer = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 200; round++) {
                CallerThreadExecutor executor = new CallerThreadExecutor(Runnable::run, NO_SPIN);
                CompletableFuture<List<Integer>> result = new CompletableFuture<>();
                List<Integer> ran = new ArrayList<>(); // only the caller touches it
                Thread caller = Thread.currentThread();
                int tasks = 1 + round % 7;
                producer.execute(() -> {
                    for (int i = 0; i < tasks; i++) {
                        int n = i;
                        executor.execute(() -> {
                            if (Thread.currentThread() != caller) {
                                throw new AssertionError("a task ran off the caller");
                            }
                            ran.add(n);
                        });
                    }
                    executor.execute(() -> result.complete(ran));
                    executor.resultCompleted();
                });
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < tasks; i++) {
                    expected.add(i);
                }
                assertEquals(expected, executor.await(result));
            }
        } finally {
            producer.shutdownNow();
            producer.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Tasks that come after the caller stopped waiting go to the fallback, in order. */
    @Test
    void tasksAfterTheCallerLeftGoToTheFallback() throws Exception {
        List<String> fallbackRan = new ArrayList<>();
        CallerThreadExecutor executor = new CallerThreadExecutor(task -> {
            fallbackRan.add("fallback");
            task.run();
        }, NO_SPIN);
        List<String> ran = new ArrayList<>();
        assertEquals("done", executor.await(CompletableFuture.completedFuture("done")));
        executor.execute(() -> ran.add("a"));
        executor.execute(() -> ran.add("b"));
        executor.execute(() -> ran.add("c"));
        assertEquals(List.of("a", "b", "c"), ran);
        assertEquals(3, fallbackRan.size());
    }
}
