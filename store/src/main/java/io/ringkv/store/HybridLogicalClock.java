package io.ringkv.store;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hybrid logical clock: timestamps that follow the wall clock when it moves forward, and still
 * advance strictly on every call when it does not (many calls within one millisecond, or the wall
 * clock stepping backwards after an NTP correction).
 *
 * <h2>Layout</h2>
 * One non-negative {@code long}: the upper 48 bits hold milliseconds since the Unix epoch, the
 * lower 16 bits a logical counter. The sign bit is never set, so millis fit in 47 bits (until the
 * year 6429) and timestamps compare correctly as signed longs:
 * <pre>
 *   63            16 15          0
 *   [ epoch millis  | counter    ]      timestamp = millis &lt;&lt; 16 | counter
 * </pre>
 * Worked example: wall clock at 1000 ms. The first {@code now()} returns {@code 1000<<16 | 0};
 * two more calls within that millisecond return counters 1 and 2. If the wall clock then steps
 * back to 990 ms, calls keep returning {@code 1000<<16 | 3}, {@code | 4}, ... until the wall
 * clock passes 1000 ms again. When the counter is at 0xFFFF the next timestamp is
 * {@code 1001<<16 | 0}: the clock borrows the next millisecond (a plain increment carries into
 * the millis field), so it runs slightly ahead of the wall clock until the wall clock catches up.
 *
 * <h2>Threading</h2>
 * Thread-safe and lock-free: the last issued timestamp lives in one {@link AtomicLong}, updated
 * by compare-and-set loops. The wall clock is injected and read once per call.
 */
public final class HybridLogicalClock {

    /** Bits of the logical counter in the low end of a timestamp. */
    public static final int COUNTER_BITS = 16;
    /** The largest logical counter value; one more borrows the next millisecond. */
    public static final int COUNTER_MAX = (1 << COUNTER_BITS) - 1;
    /** The largest wall-clock millis a timestamp can carry (the sign bit stays clear). */
    public static final long MILLIS_MAX = Long.MAX_VALUE >>> COUNTER_BITS;

    private final LongSupplier wallClockMillis;
    private final AtomicLong last = new AtomicLong();

    /**
     * @param wallClockMillis milliseconds since the Unix epoch, e.g. {@code System::currentTimeMillis}
     *                        in production and a controllable counter in tests
     */
    public HybridLogicalClock(LongSupplier wallClockMillis) {
        this.wallClockMillis = Objects.requireNonNull(wallClockMillis, "wallClockMillis");
    }

    /** A clock on {@code System.currentTimeMillis()}; the one place that reads the system clock. */
    public static HybridLogicalClock systemClock() {
        return new HybridLogicalClock(System::currentTimeMillis);
    }

    /**
     * A timestamp greater than every timestamp this clock issued or {@linkplain #observe observed}.
     *
     * @throws IllegalStateException if the wall clock reports a time outside [0, {@link #MILLIS_MAX}],
     *                               or the clock has been pushed to the largest timestamp
     */
    public long now() {
        long physical = physicalNow();
        while (true) {
            long previous = last.get();
            if (previous == Long.MAX_VALUE) {
                throw new IllegalStateException("hybrid logical clock exhausted (observed Long.MAX_VALUE)");
            }
            // previous + 1 carries from the counter into the millis on overflow: that is the
            // "borrow the next millisecond" rule, for free.
            long next = Math.max(physical, previous + 1);
            if (last.compareAndSet(previous, next)) {
                return next;
            }
        }
    }

    /**
     * Takes in a timestamp seen from a peer, so that every later {@link #now()} is greater than it:
     * a node that stored a newer write never stamps an older one afterwards.
     *
     * @throws IllegalArgumentException for a negative timestamp (not one this layout produces)
     */
    public void observe(long remoteTimestamp) {
        if (remoteTimestamp < 0) {
            throw new IllegalArgumentException("negative HLC timestamp: " + remoteTimestamp);
        }
        while (true) {
            long previous = last.get();
            if (remoteTimestamp <= previous || last.compareAndSet(previous, remoteTimestamp)) {
                return;
            }
        }
    }

    /** The last timestamp issued or observed, without advancing the clock (0 before any). */
    public long lastTimestamp() {
        return last.get();
    }

    /** The wall-clock milliseconds since the epoch carried by {@code timestamp}. */
    public static long millisOf(long timestamp) {
        return timestamp >>> COUNTER_BITS;
    }

    /** The logical counter carried by {@code timestamp}. */
    public static int counterOf(long timestamp) {
        return (int) (timestamp & COUNTER_MAX);
    }

    /** The timestamp with the given parts. */
    public static long timestampOf(long millis, int counter) {
        if (millis < 0 || millis > MILLIS_MAX || counter < 0 || counter > COUNTER_MAX) {
            throw new IllegalArgumentException("HLC parts out of range: millis=" + millis + " counter=" + counter);
        }
        return millis << COUNTER_BITS | counter;
    }

    /** The wall-clock instant carried by {@code timestamp} (the counter is dropped). */
    public static Instant instantOf(long timestamp) {
        return Instant.ofEpochMilli(millisOf(timestamp));
    }

    /** For logs and debugging: {@code 2025-01-01T00:00:00.001Z#3}. */
    public static String format(long timestamp) {
        return instantOf(timestamp) + "#" + counterOf(timestamp);
    }

    private long physicalNow() {
        long millis = wallClockMillis.getAsLong();
        if (millis < 0 || millis > MILLIS_MAX) {
            throw new IllegalStateException("wall clock out of range for an HLC timestamp: " + millis);
        }
        return millis << COUNTER_BITS;
    }

    @Override
    public String toString() {
        return "HybridLogicalClock{last=" + format(last.get()) + '}';
    }
}
