package io.ringkv.http.server.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts admitted requests against a fixed budget. Admission never waits: over budget the caller
 * answers 503 at once, so nothing queues behind a busy server.
 *
 * <p>Threading: lock-free; any thread.
 */
public final class InFlightBudget {
    private final int max;
    private final AtomicInteger inFlight = new AtomicInteger();

    public InFlightBudget(int max) {
        this.max = max;
    }

    /** Takes a permit if one is free. */
    public boolean tryAcquire() {
        int current;
        do {
            current = inFlight.get();
            if (current >= max) {
                return false;
            }
        } while (!inFlight.compareAndSet(current, current + 1));
        return true;
    }

    public void release() {
        inFlight.decrementAndGet();
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int max() {
        return max;
    }
}
