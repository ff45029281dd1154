package io.ringkv.http.client.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Moves completions off network threads onto the client executor, and only when needed: a future
 * that is already complete is returned as is (no hop), one that is not is completed once, on the
 * executor.
 */
final class Hops {
    private Hops() {
    }

    static <T> CompletableFuture<T> toExecutor(CompletableFuture<T> source, Executor executor) {
        if (source.isDone()) {
            return source;
        }
        CompletableFuture<T> target = new CompletableFuture<>();
        source.whenComplete((value, error) -> run(executor, () -> {
            if (error != null) {
                target.completeExceptionally(Failures.unwrap(error));
            } else {
                target.complete(value);
            }
        }));
        return target;
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
