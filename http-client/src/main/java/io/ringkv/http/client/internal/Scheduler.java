package io.ringkv.http.client.internal;

import java.time.Duration;

/**
 * Runs a task once after a delay; the client's timers (request timeout, connect timeout, idle
 * connections) go through it. Tasks run on a network thread and must only do short, non-blocking
 * work (hand anything else to the executor).
 *
 * <p>Threading: thread-safe.
 */
public interface Scheduler {

    /** A scheduled task that may still be cancelled. */
    interface Timer {
        /** Cancels the task if it has not run; idempotent. */
        void cancel();
    }

    Timer schedule(Runnable task, Duration delay);
}
