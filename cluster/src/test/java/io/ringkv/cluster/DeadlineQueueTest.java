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

    /** The watcher stops when nothing is queued for its idle linger, and the next add starts it again. */
    @Test
    void theWatcherStopsWhenIdleAndRestartsOnTheNextAdd() throws Exception {
        DeadlineQueue queue = new DeadlineQueue(Duration.ofMillis(20), Duration.ofMillis(20), executor);
        CompletableFuture<Void> first = new CompletableFuture<>();
        queue.add(operation(() -> false, () -> first.complete(null)));
        first.get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (queue.watching() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat("the idle watcher stopped", queue.watching(), is(false));
        CompletableFuture<Void> second = new CompletableFuture<>();
        queue.add(operation(() -> false, () -> second.complete(null)));
        second.get(30, TimeUnit.SECONDS);
    }

    /**
     * A short timeout (a read's spare delay) does not make the watcher stop between requests: it
     * waits at least {@link DeadlineQueue#IDLE_LINGER_MIN} with nothing in flight. Before, it
     * stopped after one timeout, and the next add started a thread on the request's thread.
     */
    @Test
    void aShortTimeoutKeepsTheWatcherThroughGapsBetweenOperations() throws Exception {
        DeadlineQueue queue = new DeadlineQueue(Duration.ofMillis(20), executor);
        CompletableFuture<Void> first = new CompletableFuture<>();
        queue.add(operation(() -> false, () -> first.complete(null)));
        first.get(30, TimeUnit.SECONDS);
        Thread.sleep(200); // ten timeouts with nothing in flight
        assertThat("the watcher still runs", queue.watching(), is(true));
    }

    /**
     * Operations decided behind one still in flight are dropped within a sweep, not held until
     * that one's deadline: at a replica timeout of 1 s and 30k writes/s, holding them kept 30k
     * finished operations (records, futures, answers) alive and made young collections copy them.
     */
    @Test
    void decidedOperationsBehindAnUndecidedOneAreDroppedBeforeItsDeadline() throws Exception {
        DeadlineQueue queue = new DeadlineQueue(Duration.ofMinutes(10), executor);
        AtomicBoolean firstDecided = new AtomicBoolean();
        queue.add(operation(firstDecided::get, () -> { }));
        for (int i = 0; i < 1000; i++) {
            queue.add(operation(() -> true, () -> { }));
        }
        awaitSize(queue, 1);
        firstDecided.set(true);
        awaitSize(queue, 0);
    }

    /**
     * With nothing in flight the watcher sleeps until something could fall due (a whole timeout,
     * at most {@link DeadlineQueue#SLEEP_MAX_NANOS}), not every few milliseconds: at a few hundred
     * requests a second the 10 ms sweeps it made before were most of its node's wake-ups. Fewer
     * sweeps on a slow machine only help this assertion.
     */
    @Test
    void anIdleWatcherDoesNotWakeToSweepAnEmptyQueue() throws Exception {
        DeadlineQueue queue = new DeadlineQueue(Duration.ofMinutes(10), Duration.ofMinutes(10), executor);
        queue.add(operation(() -> true, () -> { }));
        awaitSize(queue, 0);
        int sweeps = queue.sweeps();
        Thread.sleep(400); // forty of the old sweep intervals
        assertThat("sweeps while idle", queue.sweeps() - sweeps <= 1, is(true));
    }

    /** Waits until {@code queue} holds {@code expected} entries; the deadline is minutes beyond, so this cannot pass by expiry. */
    private static void awaitSize(DeadlineQueue queue, int expected) throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (queue.size() != expected && System.nanoTime() < giveUp) {
            Thread.sleep(5);
        }
        assertThat(queue.size(), is(expected));
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
