package io.ringkv.net;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimerQueueTest {

    private final TimerQueue timers = new TimerQueue();
    private final List<String> ran = new ArrayList<>();

    private ScheduledTask add(long deadline, long sequence, String name) {
        ScheduledTask task = new ScheduledTask(deadline, sequence, () -> ran.add(name));
        timers.add(task);
        return task;
    }

    @Test
    void runsDueTasksInDeadlineOrderAndReportsTheNextDelay() {
        add(300, 1, "c");
        add(100, 2, "a");
        add(200, 3, "b");
        assertThat(timers.runDue(50), is(50L));
        assertThat(timers.runDue(200), is(100L));
        assertThat(ran, contains("a", "b"));
        assertThat(timers.runDue(300), is(TimerQueue.NO_DEADLINE));
        assertThat(ran, contains("a", "b", "c"));
    }

    @Test
    void cancelledTaskDoesNotRunAndDoesNotHoldUpTheQueue() {
        ScheduledTask cancelled = add(100, 1, "cancelled");
        add(500, 2, "kept");
        cancelled.cancel();
        assertThat(timers.runDue(0), is(500L));
        assertThat(timers.size(), is(1));
        assertThat(timers.runDue(500), is(TimerQueue.NO_DEADLINE));
        assertThat(ran, contains("kept"));
    }

    /**
     * A cancelled timer stays queued until its deadline or a purge; what its task captured (a
     * request and its answer, for a request timeout) must not stay reachable through it that long.
     */
    @Test
    void aCancelledTaskLetsGoOfWhatItCapturedAtOnce() throws InterruptedException {
        List<java.lang.ref.WeakReference<byte[]>> watch = new ArrayList<>();
        ScheduledTask task = taskCapturing(watch);
        timers.add(task);
        task.cancel();
        for (int i = 0; i < 20 && watch.get(0).get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat("the cancelled task's capture was collected", watch.get(0).get() == null, is(true));
        assertThat(timers.size(), is(1));
    }

    /** A task whose only reference to a 1 MiB array is its own capture; {@code watch} gets a weak one. */
    private ScheduledTask taskCapturing(List<java.lang.ref.WeakReference<byte[]>> watch) {
        byte[] payload = new byte[1 << 20];
        watch.add(new java.lang.ref.WeakReference<>(payload));
        return new ScheduledTask(1_000, 1, () -> ran.add("size " + payload.length));
    }

    @Test
    void deadlinesCompareAcrossNanoTimeWraparound() {
        add(Long.MAX_VALUE - 10, 1, "before wrap");
        add(Long.MIN_VALUE + 10, 2, "after wrap");
        timers.runDue(Long.MIN_VALUE + 20);
        assertThat(ran, contains("before wrap", "after wrap"));
    }

    @Test
    void aFailingTaskDoesNotStopLaterOnes() {
        timers.add(new ScheduledTask(1, 1, () -> {
            throw new IllegalStateException("boom");
        }));
        add(2, 2, "later");
        timers.runDue(2);
        assertThat(ran, contains("later"));
    }

    @Test
    void cancelledTasksAreDroppedBeforeTheirDeadlineOnceTheyPileUp() {
        // Per-request timeouts: nearly every one is cancelled long before it is due.
        int scheduled = 10 * TimerQueue.PURGE_SIZE_MIN;
        for (int i = 0; i < scheduled; i++) {
            add(1_000_000 + i, i, "t" + i).cancel();
        }
        add(2_000_000, scheduled, "live");
        assertThat(timers.size() < 2 * TimerQueue.PURGE_SIZE_MIN, is(true));
        timers.runDue(2_000_000);
        assertThat(ran, contains("live"));
    }
}
