package io.ringkv.http.client.internal;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Running, shutting down, terminated; and the calls in flight that shutdown waits for.
 *
 * <pre>
 *   RUNNING --shutdown/shutdownNow--> SHUTDOWN --last call done--> TERMINATED (resources released)
 * </pre>
 *
 * <p>Threading: thread-safe. {@code onTerminated} runs once, on the thread that ends the last
 * call or calls shutdown.
 */
final class ClientLifecycle {
    enum State { RUNNING, SHUTDOWN, TERMINATED }

    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    private final Set<Call<?>> inFlight = ConcurrentHashMap.newKeySet();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final Runnable onTerminated;

    ClientLifecycle(Runnable onTerminated) {
        this.onTerminated = onTerminated;
    }

    /** Admits a call, or refuses it once shutdown began (as the JDK client does, with an IOException). */
    void admit(Call<?> call) throws IOException {
        inFlight.add(call);
        if (state.get() != State.RUNNING) {
            inFlight.remove(call);
            maybeTerminate();
            throw new IOException("HttpClient is shut down");
        }
        call.reportTo(this);
    }

    void shutdown() {
        state.compareAndSet(State.RUNNING, State.SHUTDOWN);
        maybeTerminate();
    }

    /** Shuts down and fails every call in flight with {@code cause}. */
    void shutdownNow(Throwable cause) {
        shutdown();
        for (Call<?> call : inFlight) {
            call.fail(cause);
        }
    }

    boolean isTerminated() {
        return state.get() == State.TERMINATED;
    }

    CompletableFuture<Void> terminated() {
        return terminated;
    }

    /** The call's result completed; idempotent (a call may report twice, see {@link Call#reportTo}). */
    void finished(Call<?> call) {
        inFlight.remove(call);
        maybeTerminate();
    }

    private void maybeTerminate() {
        if (state.get() == State.SHUTDOWN && inFlight.isEmpty()
                && state.compareAndSet(State.SHUTDOWN, State.TERMINATED)) {
            try {
                onTerminated.run();
            } finally {
                terminated.complete(null);
            }
        }
    }
}
