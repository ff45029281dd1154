package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeadlineQueueTest {
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "expiry-executor"));

    @AfterEach
    void stop() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS), is(true));
    }

    /** An operation that stays undecided expires, on the executor; decided ones never do. */
    @Test
    void undecidedOperationsExpireOnTheExecutorAndDecidedOnesNever() throws Exception {
        DeadlineQueue queue = new DeadlineQueue(Duration.ofMillis(50), executor);
        AtomicInteger decidedExpired = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            queue.add(operation(() -> true, decidedExpired::incrementAndGet));
        }
        CompletableFuture<String> expiredOn = new CompletableFuture<>();
        queue.add(operation(() -> false, () -> expiredOn.complete(Thread.currentThread().getName())));
        assertThat(expiredOn.get(30, TimeUnit.SECONDS), is("expiry-executor"));
        assertThat(decidedExpired.get(), is(0));
    }

    /** The watcher stops when nothing is queued for a whole timeout, and the next add starts it again. */
    @Test
    void theWatcherStopsWhenIdleAndRestartsOnTheNextAdd() throws Exception {
        DeadlineQueue queue = new DeadlineQueue(Duration.ofMillis(20), executor);
        CompletableFuture<Void> first = new CompletableFuture<>();
        queue.add(operation(() -> false, () -> first.complete(null)));
        first.get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (watchers() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat("the idle watcher stopped", watchers(), is(0L));
        CompletableFuture<Void> second = new CompletableFuture<>();
        queue.add(operation(() -> false, () -> second.complete(null)));
        second.get(30, TimeUnit.SECONDS);
    }

    private static long watchers() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("ringkv-deadlines-")).count();
    }

    private static DeadlineQueue.Expiring operation(java.util.function.BooleanSupplier decided, Runnable expire) {
        AtomicBoolean once = new AtomicBoolean();
        return new DeadlineQueue.Expiring() {
            @Override
            public boolean decided() {
                return decided.getAsBoolean();
            }

            @Override
            public void expire() {
                if (once.compareAndSet(false, true)) {
                    expire.run();
                }
            }
        };
    }
}
