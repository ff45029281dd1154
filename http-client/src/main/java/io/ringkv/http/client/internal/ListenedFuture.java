package io.ringkv.http.client.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A future with room for one completion action of its own ({@link #listen}), run when it
 * completes, however that happens: by our code, or by an application's {@code complete},
 * {@code cancel}, {@code orTimeout} and the like, which all go through the methods overridden here.
 * Any other action is registered as on any future; dependent stages are plain futures.
 *
 * <p>Why: every request waits on a few futures of ours (the call's result, the attempt's answer,
 * the response head, the body), and {@code whenComplete} built a completion node and a dependent
 * future for each: about 150 of the 2,030 bytes a small h2c GET allocated.
 *
 * <p>Threading: any thread. The action runs once, on the thread that completes the future, or on
 * the thread that calls {@link #listen} when the future completed before.
 */
final class ListenedFuture<T> extends CompletableFuture<T> {
    /** {@link #listener} once the future completed. */
    private static final Object COMPLETED = new Object();
    private static final VarHandle LISTENER;

    static {
        try {
            LISTENER = MethodHandles.lookup().findVarHandle(ListenedFuture.class, "listener", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code null} (none yet), the action (waiting), or {@link #COMPLETED}. */
    private volatile Object listener;

    /**
     * Runs {@code action} with {@code future}'s outcome when it completes: as its listener when it
     * is one of these and has none yet, else through {@code whenComplete}.
     */
    static <T> void whenDone(CompletionStage<T> future, BiConsumer<? super T, ? super Throwable> action) {
        if (!(future instanceof ListenedFuture<T> listened && listened.listen(action))) {
            future.whenComplete(action);
        }
    }

    /**
     * Makes {@code action} this future's listener; at once, on this thread, if it completed already.
     * Returns false, and does nothing, when another action listens already.
     */
    boolean listen(BiConsumer<? super T, ? super Throwable> action) {
        Objects.requireNonNull(action, "action");
        if (LISTENER.compareAndSet(this, null, action)) {
            return true;
        }
        if (listener != COMPLETED) {
            return false;
        }
        tell(action);
        return true;
    }

    @Override
    public boolean complete(T value) {
        return completed(super.complete(value));
    }

    @Override
    public boolean completeExceptionally(Throwable error) {
        return completed(super.completeExceptionally(error));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return completed(super.cancel(mayInterruptIfRunning));
    }

    @Override
    public void obtrudeValue(T value) {
        super.obtrudeValue(value);
        completed(true);
    }

    @Override
    public void obtrudeException(Throwable error) {
        super.obtrudeException(error);
        completed(true);
    }

    /** Through {@link #complete}: the JDK's version completes the future without it. */
    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
        Objects.requireNonNull(supplier, "supplier");
        Objects.requireNonNull(executor, "executor");
        executor.execute(() -> {
            try {
                complete(supplier.get());
            } catch (Throwable e) {
                completeExceptionally(e);
            }
        });
        return this;
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
        return completeAsync(supplier, defaultExecutor());
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }

    private boolean completed(boolean now) {
        if (now) {
            Object action = LISTENER.getAndSet(this, COMPLETED);
            if (action instanceof BiConsumer<?, ?>) {
                @SuppressWarnings("unchecked")
                BiConsumer<? super T, ? super Throwable> listening = (BiConsumer<? super T, ? super Throwable>) action;
                tell(listening);
            }
        }
        return now;
    }

    /** As {@code whenComplete} would: the value, or the failure as completed (a cancellation included). */
    private void tell(BiConsumer<? super T, ? super Throwable> action) {
        switch (state()) {
            case SUCCESS -> action.accept(resultNow(), null);
            case FAILED -> action.accept(null, exceptionNow());
            case CANCELLED -> {
                try {
                    join();
                } catch (CancellationException cancelled) {
                    action.accept(null, cancelled);
                }
            }
            case RUNNING -> throw new IllegalStateException("told of a future that has not completed");
        }
    }
}
