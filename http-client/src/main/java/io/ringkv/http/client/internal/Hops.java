package io.ringkv.http.client.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

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
        Hop<T> target = new Hop<>(executor);
        source.whenComplete(target);
        return target;
    }

    /**
     * The future on the executor's side of one hop, and both of the hop's actions: it takes the
     * source's outcome (accept, any thread) and completes itself with it on the executor (run).
     * One object where two lambdas were built on every request.
     *
     * <p>Threading: accept runs once; its writes reach run through the executor's hand-off.
     */
    private static final class Hop<T> extends CompletableFuture<T> implements BiConsumer<T, Throwable>, Runnable {
        private final Executor executor;
        private T value;
        private Throwable error;

        Hop(Executor executor) {
            this.executor = executor;
        }

        @Override
        public void accept(T outcome, Throwable failure) {
            value = outcome;
            error = failure;
            Hops.run(executor, this);
        }

        @Override
        public void run() {
            if (error != null) {
                completeExceptionally(Failures.unwrap(error));
            } else {
                complete(value);
            }
        }
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
