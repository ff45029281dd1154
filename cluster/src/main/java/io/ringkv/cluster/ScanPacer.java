package io.ringkv.cluster;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keeps scans that share it under one rate, spread evenly: each batch books its share of time on
 * one shared schedule, and a scanner that runs ahead sleeps until its batch is due. Scans so paced
 * take a few milliseconds of every ten instead of bursting at full speed, which is what foreground
 * requests feel. A node has two: anti-entropy's, in records per second, shared by its own scans
 * and those it runs for peers (digest and versions requests; docs/cluster.md, "Anti-entropy");
 * and the hand-over's, in bytes read per second ({@link Cleanup}).
 *
 * <p>Threading: thread-safe; {@link #scanned} may sleep, so it runs only on threads that may
 * block (the anti-entropy thread, the handler executor), never on an event loop.
 */
final class ScanPacer {
    /** Records an anti-entropy scanner reads between two calls to {@link #scanned}. */
    static final int BATCH = 64;
    /** A scanner idle for longer gets at most this much burst credit when it resumes. */
    private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** Sleeps; a test gives one that advances its clock instead. */
    interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    private final long unitsPerSecond;
    private final LongSupplier clock;
    private final Sleeper sleeper;
    private long nextFreeNanos = Long.MIN_VALUE;

    /** @param unitsPerSecond the rate all its scanners share (records, or bytes) */
    ScanPacer(long unitsPerSecond) {
        this(unitsPerSecond, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
    }

    ScanPacer(long unitsPerSecond, LongSupplier clock, Sleeper sleeper) {
        if (unitsPerSecond < 1) {
            throw new IllegalArgumentException("scan rate must be positive, got " + unitsPerSecond);
        }
        this.unitsPerSecond = unitsPerSecond;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** {@code units} were read; returns once the rate allows them (sleeping if it runs ahead). */
    void scanned(long units) throws InterruptedException {
        long wait;
        synchronized (this) {
            long now = clock.getAsLong();
            long start = nextFreeNanos == Long.MIN_VALUE || now - BURST_NANOS - nextFreeNanos > 0
                    ? now - BURST_NANOS : nextFreeNanos;
            // In floating point: a batch of bytes times 10^9 could pass a long.
            nextFreeNanos = start + Math.max(1L, (long) ((double) units * TimeUnit.SECONDS.toNanos(1) / unitsPerSecond));
            wait = nextFreeNanos - now;
        }
        if (wait > 0) {
            sleeper.sleepNanos(wait);
        }
    }
}
