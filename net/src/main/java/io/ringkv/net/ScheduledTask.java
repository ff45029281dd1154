package io.ringkv.net;

/**
 * A task scheduled on an {@link EventLoop} to run once after a delay.
 *
 * <p>Threading: {@link #cancel()} may be called from any thread; a cancelled task is skipped when
 * its time comes (it is dropped lazily, not searched for in the queue). Cancelling lets go of the
 * task at once, so that what it captured (a request, its answer) is not kept reachable by a timer
 * that will never run it.
 */
public final class ScheduledTask implements Comparable<ScheduledTask> {
    private final long deadlineNanos;
    private final long sequence;
    /** Null once cancelled. */
    private volatile Runnable task;

    ScheduledTask(long deadlineNanos, long sequence, Runnable task) {
        this.deadlineNanos = deadlineNanos;
        this.sequence = sequence;
        this.task = java.util.Objects.requireNonNull(task, "task");
    }

    public void cancel() {
        task = null;
    }

    public boolean isCancelled() {
        return task == null;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    void run() {
        Runnable current = task;
        if (current != null) {
            current.run();
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
