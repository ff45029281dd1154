package io.ringkv.net;

/**
 * A task scheduled on an {@link EventLoop} to run once after a delay.
 *
 * <p>Threading: {@link #cancel()} may be called from any thread; a cancelled task is skipped when
 * its time comes (it is dropped lazily, not searched for in the queue).
 */
public final class ScheduledTask implements Comparable<ScheduledTask> {
    private final long deadlineNanos;
    private final long sequence;
    private final Runnable task;
    private volatile boolean cancelled;

    ScheduledTask(long deadlineNanos, long sequence, Runnable task) {
        this.deadlineNanos = deadlineNanos;
        this.sequence = sequence;
        this.task = task;
    }

    public void cancel() {
        cancelled = true;
    }

    public boolean isCancelled() {
        return cancelled;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    void run() {
        if (!cancelled) {
            task.run();
        }
    }

    @Override
    public int compareTo(ScheduledTask other) {
        // Deadlines compare by difference: nanoTime values may wrap around.
        long delta = deadlineNanos - other.deadlineNanos;
        if (delta != 0) {
            return delta < 0 ? -1 : 1;
        }
        return Long.compare(sequence, other.sequence);
    }
}
