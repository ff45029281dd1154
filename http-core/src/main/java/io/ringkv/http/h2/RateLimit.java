package io.ringkv.http.h2;

/**
 * Counts events in fixed intervals of {@code intervalNanos} and says when more than
 * {@code maxEvents} happened within one. Time is passed in, so tests need no clock.
 *
 * <p>Threading: not thread-safe; confined to the connection's reading side.
 */
final class RateLimit {
    private final int maxEvents;
    private final long intervalNanos;
    private long intervalStart;
    private int count;
    private boolean started;

    RateLimit(int maxEvents, long intervalNanos) {
        this.maxEvents = maxEvents;
        this.intervalNanos = intervalNanos;
    }

    /** Records one event; returns false once the interval holds more than the maximum. */
    boolean tryRecord(long nowNanos) {
        if (!started || nowNanos - intervalStart >= intervalNanos) {
            started = true;
            intervalStart = nowNanos;
            count = 0;
        }
        count++;
        return count <= maxEvents;
    }
}
