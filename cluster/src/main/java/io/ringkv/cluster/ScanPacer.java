package io.ringkv.cluster;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keeps a node's anti-entropy scans, its own and those it runs for peers (digest and versions
 * requests), under one rate of records per second, spread evenly: each batch of records books
 * its share of time on one shared schedule, and a scanner that runs ahead sleeps until its batch
 * is due. Scans so paced take a few milliseconds of every ten instead of bursting at full speed,
 * which is what foreground requests feel (docs/cluster.md, "Anti-entropy").
 *
 * <p>Threading: thread-safe; {@link #scanned} may sleep, so it runs only on threads that may
 * block (the anti-entropy thread, the handler executor), never on an event loop.
 */
final class ScanPacer {
    /** Records a scanner reads between two calls to {@link #scanned}. */
    static final int BATCH = 64;
    /** A scanner idle for longer gets at most this much burst credit when it resumes. */
    private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** Sleeps; a test gives one that advances its clock instead. */
    interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    private final long nanosPerRecord;
    private final LongSupplier clock;
    private final Sleeper sleeper;
    private long nextFreeNanos = Long.MIN_VALUE;

    /** @param recordsPerSecond the node's total scan rate */
    ScanPacer(int recordsPerSecond) {
        this(recordsPerSecond, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
    }

    ScanPacer(int recordsPerSecond, LongSupplier clock, Sleeper sleeper) {
        if (recordsPerSecond < 1) {
            throw new IllegalArgumentException("scan rate must be positive, got " + recordsPerSecond);
        }
        this.nanosPerRecord = Math.max(1, TimeUnit.SECONDS.toNanos(1) / recordsPerSecond);
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** {@code records} were read; returns once the rate allows them (sleeping if it runs ahead). */
    void scanned(int records) throws InterruptedException {
        long wait;
        synchronized (this) {
            long now = clock.getAsLong();
            long start = nextFreeNanos == Long.MIN_VALUE || now - BURST_NANOS - nextFreeNanos > 0
                    ? now - BURST_NANOS : nextFreeNanos;
            nextFreeNanos = start + records * nanosPerRecord;
            wait = nextFreeNanos - now;
        }
        if (wait > 0) {
            sleeper.sleepNanos(wait);
        }
    }
}
