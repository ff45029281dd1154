package io.ringkv.http.client.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Moves work off network threads onto the client executor (see {@link #run}).
 */
final class Hops {
    private Hops() {
    }

    /**
     * Runs {@code task} on {@code executor}. If the executor refuses (an application executor shut
     * down under us), the task runs here: completing a future late on the wrong thread beats
     * leaving the application waiting forever.
     */
    static void run(Executor executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException rejected) {
            task.run();
        }
    }
}
