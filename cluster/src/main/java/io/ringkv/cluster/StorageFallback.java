package io.ringkv.cluster;

import io.ringkv.store.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs a storage call that could not be made without waiting ({@link io.ringkv.store.WouldBlockException})
 * on an executor whose threads may block, for callers on an event loop.
 *
 * <p>Threading: stateless; the future completes on the executor, or at once when the executor
 * refuses the call (full, or shutting down) with {@link RejectedExecutionException}.
 */
final class StorageFallback {
    private StorageFallback() {
    }

    /** A storage call that may block. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws StoreException;
    }

    static <T> CompletableFuture<T> run(Executor executor, Call<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(call.call());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
        return result;
    }
}
