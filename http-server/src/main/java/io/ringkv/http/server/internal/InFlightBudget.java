package io.ringkv.http.server.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts admitted requests against a fixed budget. Admission never waits: over budget the caller
 * answers 503 at once, so nothing queues behind a busy server.
 *
 * <p>The last {@code reserve} slots are for priority requests only: work that another server
 * admitted already (a peer's replica call), which a 503 here would turn into a failure there after
 * its cost was paid. Under overload the server then sheds new work at its edge first.
 *
 * <p>Threading: lock-free; any thread.
 */
public final class InFlightBudget {
    private final int max;
    private final int ordinaryMax;
    private final AtomicInteger inFlight = new AtomicInteger();

    public InFlightBudget(int max) {
        this(max, 0);
    }

    /** @param reserve of {@code max}, the slots only priority requests take (0 to max - 1) */
    public InFlightBudget(int max, int reserve) {
        if (max < 1 || reserve < 0 || reserve >= max) {
            throw new IllegalArgumentException("need max >= 1 and 0 <= reserve < max, got " + max + ", " + reserve);
        }
        this.max = max;
        this.ordinaryMax = max - reserve;
    }

    /** Takes a permit if one is free outside the reserve. */
    public boolean tryAcquire() {
        return tryAcquire(false);
    }

    /** Takes a permit if one is free; a priority request may take one of the reserve too. */
    public boolean tryAcquire(boolean priority) {
        int limit = priority ? max : ordinaryMax;
        int current;
        do {
            current = inFlight.get();
            if (current >= limit) {
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
