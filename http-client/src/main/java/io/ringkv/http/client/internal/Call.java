package io.ringkv.http.client.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

/**
 * One {@code send}/{@code sendAsync}: the future returned to the application, the exchange
 * currently running for it, and its timeout.
 *
 * <p>Threading: thread-safe. The result future is completed on the client executor (or on the
 * thread that cancels it), never directly by an event loop; an application that gives the client
 * an executor running tasks inline (as ringkv's cluster does, for replies that must not wait for
 * a thread hand-off) gets its completions on the thread that finished the exchange, a loop
 * included. A failure (timeout, cancellation, client shutdown) aborts the current exchange and
 * any exchange attached later; the first failure is the one the future reports.
 */
public final class Call<T> implements BiConsumer<HttpResponse<T>, Throwable> {
    // Fields with a handle rather than two AtomicReference objects per call.
    private static final VarHandle TIMEOUT;

    static {
        try {
            TIMEOUT = MethodHandles.lookup().findVarHandle(Call.class, "timeout", Scheduler.Timer.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ListenedFuture<HttpResponse<T>> result = new ListenedFuture<>();
    /** Set only, so a volatile field does; the timer is taken once, through TIMEOUT. */
    private volatile Exchange current;
    private volatile Scheduler.Timer timeout;
    private final Executor executor;
    private final PushPromises<T> pushes;
    private volatile Throwable failure;
    /** Told when the result completes; set once by {@link #reportTo}. */
    private volatile ClientLifecycle lifecycle;

    Call(Executor executor) {
        this(executor, null);
    }

    /** @param pushes what to do with HTTP/2 push promises; {@code null} refuses them */
    Call(Executor executor, PushPromises<T> pushes) {
        this.executor = executor;
        this.pushes = pushes;
        // The call is its result's one listener (accept): no completion node or lambda per call.
        result.listen(this);
    }

    /**
     * The result completed (any thread; not for other callers). Cancelling the returned future
     * aborts the exchange (the JDK client does the same); the client's lifecycle learns the call
     * is over, and a synchronous send's caller wakes.
     */
    @Override
    public void accept(HttpResponse<T> response, Throwable error) {
        if (error instanceof CancellationException cancelled) {
            abortExchange(cancelled);
        }
        ClientLifecycle owner = lifecycle;
        if (owner != null) {
            owner.finished(this);
        }
        if (executor instanceof CallerThreadExecutor waiting) {
            waiting.resultCompleted(); // a synchronous send waits for this (see CallerThreadExecutor#await)
        }
    }

    /**
     * Makes {@code owner} hear of the call's end: at once if it already ended. A result that
     * completes meanwhile may report twice, which {@link ClientLifecycle#finished} allows.
     */
    void reportTo(ClientLifecycle owner) {
        lifecycle = owner;
        if (result.isDone()) {
            owner.finished(this);
        }
    }

    public CompletableFuture<HttpResponse<T>> result() {
        return result;
    }

    public Executor executor() {
        return executor;
    }

    /** The call's push promise handling, or {@code null} when it was sent without a handler. */
    PushPromises<T> pushes() {
        return pushes;
    }

    /** Fails the call with {@link HttpTimeoutException} unless it reached a response head before {@code delay}. */
    void armTimeout(Scheduler scheduler, Duration delay) {
        Scheduler.Timer timer = scheduler.schedule(
                () -> fail(new HttpTimeoutException("request timed out")), delay);
        timeout = timer;
        if (result.isDone()) {
            timer.cancel();
        }
    }

    /** The final response head arrived: the request timeout no longer applies (as in the JDK client). */
    void disarmTimeout() {
        // Most calls have no timeout: a plain read spares them the atomic swap.
        Scheduler.Timer timer = timeout == null ? null : (Scheduler.Timer) TIMEOUT.getAndSet(this, (Scheduler.Timer) null);
        if (timer != null) {
            timer.cancel();
        }
    }

    /** Whether the call already failed or completed (a retry would be pointless). */
    boolean isFinished() {
        return failure != null || result.isDone();
    }

    /** Makes {@code exchange} the one to abort on failure; aborts it at once if the call already failed. */
    public void attach(Exchange exchange) {
        current = exchange;
        Throwable failed = failure;
        if (failed != null || result.isDone()) {
            exchange.abort(failed != null ? failed : new CancellationException("call completed"));
        }
    }

    /** Completes the call with {@code response}, on the calling thread (already the executor). */
    void succeed(HttpResponse<T> response) {
        disarmTimeout();
        result.complete(response);
    }

    /** Fails the call: aborts the exchange now, completes the future on the executor. */
    public void fail(Throwable cause) {
        Throwable error = Failures.unwrap(cause);
        failure = error;
        disarmTimeout();
        abortExchange(error);
        if (!result.isDone()) {
            Hops.run(executor, () -> result.completeExceptionally(error));
        }
    }

    /**
     * Like {@link #fail} but from a thread that is already the executor: completes inline. When
     * the call already failed (a timeout that aborted the exchange, whose abort reports back
     * here), the first failure is the one the caller sees.
     */
    void failHere(Throwable cause) {
        Throwable first = failure;
        Throwable error = first != null ? first : Failures.unwrap(cause);
        failure = error;
        disarmTimeout();
        abortExchange(error);
        result.completeExceptionally(error);
    }

    private void abortExchange(Throwable cause) {
        Exchange exchange = current;
        if (exchange != null) {
            exchange.abort(cause);
        }
    }
}
