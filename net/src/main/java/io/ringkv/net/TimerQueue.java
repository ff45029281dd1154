package io.ringkv.net;

import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timers of one event loop, ordered by deadline.
 *
 * <p>Threading: confined to the loop thread. Time is a parameter so the queue can be driven by a
 * test clock. Bound: one entry per scheduled task; owners schedule a constant number of timers per
 * connection, so the size is bounded by the connection count.
 */
final class TimerQueue {
    private static final Logger log = LoggerFactory.getLogger(TimerQueue.class);

    /** Returned by {@link #runDue} when no timer is pending. */
    static final long NO_DEADLINE = -1;

    /** Below this size cancelled tasks are left to expire; purging would cost more than it saves. */
    static final int PURGE_SIZE_MIN = 1024;

    private final PriorityQueue<ScheduledTask> queue = new PriorityQueue<>();
    private int purgeAtSize = PURGE_SIZE_MIN;

    void add(ScheduledTask scheduled) {
        queue.add(scheduled);
        if (queue.size() >= purgeAtSize) {
            purgeCancelled();
        }
    }

    /**
     * Cancelled tasks stay queued until their deadline (cancel is a flag, settable from any
     * thread). Timers that are nearly always cancelled, such as per-request timeouts, would then
     * pile up to rate x delay entries. Dropping them whenever the queue has doubled since the last
     * purge keeps the size within twice the live timers, at an amortised constant cost per add.
     */
    private void purgeCancelled() {
        queue.removeIf(ScheduledTask::isCancelled);
        purgeAtSize = Math.max(PURGE_SIZE_MIN, 2 * queue.size());
    }

    /**
     * Runs every task whose deadline is at or before {@code nowNanos}.
     *
     * @return nanoseconds until the next deadline, or {@link #NO_DEADLINE}
     */
    long runDue(long nowNanos) {
        ScheduledTask head;
        while ((head = queue.peek()) != null) {
            long remaining = head.deadlineNanos() - nowNanos;
            if (remaining > 0 && !head.isCancelled()) {
                return remaining;
            }
            queue.poll();
            runContained(head);
        }
        return NO_DEADLINE;
    }

    int size() {
        return queue.size();
    }

    void clear() {
        queue.clear();
    }

    private static void runContained(ScheduledTask task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            log.error("timer task failed", e);
        }
    }
}
