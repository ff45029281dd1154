package io.ringkv.net;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EventLoopTest {

    private final EventLoopGroup group = newGroup();

    private static EventLoopGroup newGroup() {
        try {
            return new EventLoopGroup(2, "test-loop");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void closeGroup() {
        group.close();
    }

    @Test
    void executeRunsTasksOnTheLoopThread() throws Exception {
        EventLoop loop = group.next();
        CompletableFuture<String> thread = new CompletableFuture<>();
        loop.execute(() -> thread.complete(Thread.currentThread().getName() + " " + loop.inLoop()));
        assertThat(thread.get(10, TimeUnit.SECONDS), startsWith("test-loop-"));
        assertThat(thread.get().endsWith(" true"), is(true));
    }

    @Test
    void nextAssignsLoopsRoundRobin() {
        EventLoop first = group.next();
        EventLoop second = group.next();
        assertThat(first == second, is(false));
        assertThat(group.next(), is(first));
    }

    @Test
    void timersFireInDeadlineOrderAndCancelledOnesNever() {
        EventLoop loop = group.next();
        List<String> fired = new CopyOnWriteArrayList<>();
        // Scheduled and cancelled in one task on the loop, which fires no timer while the task runs:
        // the cancelled one cannot fire first, whatever the scheduler does to the threads, and the
        // deadlines are far enough apart that the order is the deadlines', not the calls'.
        loop.execute(() -> {
            loop.schedule(() -> fired.add("late"), Duration.ofMillis(1_500));
            ScheduledTask cancelled = loop.schedule(() -> fired.add("cancelled"), Duration.ofMillis(20));
            loop.schedule(() -> fired.add("early"), Duration.ofMillis(10));
            cancelled.cancel();
        });
        Poll.until("both timers fired", () -> fired.size() == 2);
        // A marker scheduled after the cancelled one's deadline proves it had its chance to run.
        CompletableFuture<Void> marker = new CompletableFuture<>();
        loop.schedule(() -> marker.complete(null), Duration.ofMillis(1));
        marker.join();
        assertThat(fired, contains("early", "late"));
    }

    /**
     * A timer scheduled from another thread while the loop sleeps until a much later timer (or
     * without any) must wake it: the loop would otherwise fire it an hour late.
     */
    @Test
    void aTimerFromAnotherThreadWakesALoopThatSleepsLonger() throws Exception {
        EventLoop loop = group.next();
        CompletableFuture<Void> alone = new CompletableFuture<>();
        loop.schedule(() -> alone.complete(null), Duration.ofMillis(5));
        alone.get(30, TimeUnit.SECONDS);

        ScheduledTask hourLater = loop.schedule(() -> { }, Duration.ofHours(1));
        // Let the loop go to sleep until the hour-long timer before the short one arrives.
        CompletableFuture<Void> settled = new CompletableFuture<>();
        loop.execute(() -> settled.complete(null));
        settled.get(10, TimeUnit.SECONDS);
        Thread.sleep(50);
        CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
        loop.schedule(() -> onLoop.complete(loop.inLoop()), Duration.ofMillis(5));
        assertThat(onLoop.get(30, TimeUnit.SECONDS), is(true));
        hourLater.cancel();
    }

    /** Many threads scheduling at once, each timer earlier or later than the others: none is lost. */
    @Test
    void timersScheduledConcurrentlyFromManyThreadsAllFire() throws Exception {
        EventLoop loop = group.next();
        int threads = 4;
        int perThread = 2_000;
        java.util.concurrent.CountDownLatch fired = new java.util.concurrent.CountDownLatch(threads * perThread);
        List<Thread> schedulers = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            schedulers.add(Thread.ofPlatform().start(() -> {
                java.util.Random random = new java.util.Random(seed);
                for (int i = 0; i < perThread; i++) {
                    loop.schedule(fired::countDown, random.nextInt(20), TimeUnit.MILLISECONDS);
                }
            }));
        }
        for (Thread scheduler : schedulers) {
            scheduler.join();
        }
        assertThat(fired.await(60, TimeUnit.SECONDS), is(true));
    }

    @Test
    void aStoppedLoopRejectsTasks() {
        EventLoop loop = group.next();
        group.close();
        try {
            loop.execute(() -> { });
            throw new AssertionError("expected a rejection");
        } catch (RejectedExecutionException expected) {
            assertThat(loop.state(), is(EventLoop.State.TERMINATED));
        }
    }

    @Test
    void aLoopThatDiesOfAnErrorTellsItsOwner() throws Exception {
        java.util.concurrent.CompletableFuture<Throwable> told = new java.util.concurrent.CompletableFuture<>();
        try (EventLoopGroup dying = new EventLoopGroup(1, "dying-loop", EventLoopGroup.READ_BUFFER_BYTES_DEFAULT,
                System::nanoTime, told::complete)) {
            dying.next().execute(() -> {
                throw new OutOfMemoryError("injected");
            });
            Throwable cause = told.get(10, java.util.concurrent.TimeUnit.SECONDS);
            org.hamcrest.MatcherAssert.assertThat(cause.getMessage(), org.hamcrest.Matchers.is("injected"));
        }
    }
}
