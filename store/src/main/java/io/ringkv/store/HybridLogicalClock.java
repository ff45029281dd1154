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
 * One non-negative {@code long}: the upper 48 bits hold milliseconds since the Unix epoch, then a
 * 12-bit logical counter, then the 4-bit index of the node that issued it. The sign bit is never
 * set, so millis fit in 47 bits (until the year 6429) and timestamps compare correctly as signed
 * longs:
 * <pre>
 *   63            16 15       4 3    0
 *   [ epoch millis  | counter  | node ]      timestamp = millis &lt;&lt; 16 | counter &lt;&lt; 4 | node
 * </pre>
 * Two nodes never issue the same timestamp (their node bits differ), so equal timestamps never
 * have to be broken by the value: the later of two writes stamped in one millisecond by two
 * coordinators is the one whose coordinator had seen the other's timestamp ({@link #observe}),
 * else the one from the node with the higher index. Timestamps written before the node bits
 * existed (16-bit counter) read as the same numbers and still compare correctly.
 *
 * <p>Worked example, node 2: wall clock at 1000 ms. The first {@code now()} is
 * {@code 1000<<16 | 0<<4 | 2}; two more calls in that millisecond have counters 1 and 2. If the
 * wall clock steps back to 990 ms, calls keep counting in millisecond 1000 until the wall clock
 * passes it again. After counter 0xFFF the next timestamp borrows millisecond 1001.
 *
 * <h2>Bounds</h2>
 * {@link #isAheadBy} tells whether a peer's timestamp is further ahead of this clock's wall time
 * than a bound: the cluster refuses such timestamps instead of observing them, so one forged or
 * far-fast timestamp cannot drag every clock forward (or exhaust it at {@code Long.MAX_VALUE}).
 *
 * <h2>Persistence</h2>
 * With a {@link ClockLease}, the clock starts above the mark stored there and never issues a
 * timestamp at or beyond it without first storing a new mark {@link #LEASE_AHEAD_MILLIS} ahead:
 * one small durable write per lease period, and a restarted node issues timestamps higher than
 * any it issued before, whatever its wall clock says.
 *
 * <h2>Threading</h2>
 * Thread-safe. The last timestamp lives in one {@link AtomicLong}, updated by compare-and-set
 * loops; renewing the lease takes a lock (once per lease period). The wall clock is injected and
 * read once per call.
 */
public final class HybridLogicalClock {

    /** Bits below the millis: the logical counter and the node index. */
    public static final int COUNTER_BITS = 16;
    /** Bits of the node index, the lowest of a timestamp. */
    public static final int NODE_BITS = 4;
    /** The largest node index: a cluster has at most 16 nodes. */
    public static final int NODE_MAX = (1 << NODE_BITS) - 1;
    /** The largest logical counter value; one more borrows the next millisecond. */
    public static final int COUNTER_MAX = (1 << (COUNTER_BITS - NODE_BITS)) - 1;
    /** The largest wall-clock millis a timestamp can carry (the sign bit stays clear). */
    public static final long MILLIS_MAX = Long.MAX_VALUE >>> COUNTER_BITS;
    /** How far ahead of the issued timestamps the persisted mark is kept. */
    public static final long LEASE_AHEAD_MILLIS = 200;

    private final LongSupplier wallClockMillis;
    private final int node;
    private final ClockLease lease;
    private final AtomicLong last = new AtomicLong();
    private final Object leaseLock = new Object();
    private volatile long leaseMillis;

    /**
     * A clock for node 0 without persistence.
     *
     * @param wallClockMillis milliseconds since the Unix epoch, e.g. {@code System::currentTimeMillis}
     *                        in production and a controllable counter in tests
     */
    public HybridLogicalClock(LongSupplier wallClockMillis) {
        this.wallClockMillis = Objects.requireNonNull(wallClockMillis, "wallClockMillis");
        this.node = 0;
        this.lease = ClockLease.NONE;
        this.leaseMillis = Long.MAX_VALUE;
    }

    private HybridLogicalClock(LongSupplier wallClockMillis, int node, ClockLease lease, long storedMillis) {
        this.wallClockMillis = wallClockMillis;
        this.node = node;
        this.lease = lease;
        this.leaseMillis = storedMillis;
        // Everything issued before a restart is below the stored mark: start at it.
        last.set(Math.max(0, storedMillis) << COUNTER_BITS);
    }

    /**
     * A clock for one node of a cluster, resuming above the mark in {@code lease}.
     *
     * @param node the node's index, 0..{@link #NODE_MAX}
     * @throws StoreException when the mark cannot be read
     */
    public static HybridLogicalClock forNode(LongSupplier wallClockMillis, int node, ClockLease lease) throws StoreException {
        if (node < 0 || node > NODE_MAX) {
            throw new IllegalArgumentException("node index must be in 0.." + NODE_MAX + ", got " + node);
        }
        return new HybridLogicalClock(Objects.requireNonNull(wallClockMillis), node, Objects.requireNonNull(lease),
                lease.loadMillis());
    }

    /** A clock on {@code System.currentTimeMillis()}; the one place that reads the system clock. */
    public static HybridLogicalClock systemClock() {
        return new HybridLogicalClock(System::currentTimeMillis);
    }

    /**
     * A timestamp greater than every timestamp this clock issued or {@linkplain #observe observed},
     * carrying this clock's node index.
     *
     * @throws IllegalStateException if the wall clock reports a time outside [0, {@link #MILLIS_MAX}],
     *                               the clock has been pushed to the largest timestamp, or the lease
     *                               cannot be renewed
     */
    public long now() {
        long physicalTicks = physicalNow() >>> NODE_BITS;
        while (true) {
            long previous = last.get();
            long previousTicks = previous >>> NODE_BITS;
            if (previousTicks >= Long.MAX_VALUE >>> NODE_BITS) {
                throw new IllegalStateException("hybrid logical clock exhausted (at " + previous + ")");
            }
            // previousTicks + 1 carries from the counter into the millis on overflow: that is the
            // "borrow the next millisecond" rule, for free.
            long next = Math.max(physicalTicks, previousTicks + 1) << NODE_BITS | node;
            if (millisOf(next) >= leaseMillis) {
                renewLease(millisOf(next));
            }
            if (last.compareAndSet(previous, next)) {
                return next;
            }
        }
    }

    private void renewLease(long millisNeeded) {
        synchronized (leaseLock) {
            if (millisNeeded < leaseMillis) {
                return;
            }
            long renewed = millisNeeded + LEASE_AHEAD_MILLIS;
            try {
                lease.storeMillis(renewed);
            } catch (StoreException e) {
                throw new IllegalStateException("cannot persist the clock's high-water mark: " + e.getMessage(), e);
            }
            leaseMillis = renewed;
        }
    }

    /**
     * Takes in a timestamp seen from a peer, so that every later {@link #now()} is greater than it:
     * a node that stored a newer write never stamps an older one afterwards. Callers refuse
     * timestamps {@linkplain #isAheadBy too far ahead} instead of observing them.
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

    /**
     * Whether {@code timestamp} lies more than {@code boundMillis} ahead of this clock's wall time:
     * a peer's clock that far ahead (or a forged timestamp) must not be observed.
     */
    public boolean isAheadBy(long timestamp, long boundMillis) {
        return millisOf(timestamp) - wallClockMillis.getAsLong() > boundMillis;
    }

    /** This clock's wall time, epoch millis (what {@link #isAheadBy} compares with). */
    public long wallMillis() {
        return wallClockMillis.getAsLong();
    }

    /**
     * The time this clock stands at, epoch millis, without advancing it: its wall time, or the
     * millis of the last timestamp it issued or observed when those are later (a peer's clock
     * ahead by less than the bound, a wall clock that stepped back, a lease taken after a
     * restart). What a node judges expiry by: never behind its wall clock, and never behind a
     * write it stored, so a node that took in a write stamped after a key's expiry no longer
     * shows that key.
     */
    public long physicalMillis() {
        return Math.max(wallClockMillis.getAsLong(), millisOf(last.get()));
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
        return (int) ((timestamp >>> NODE_BITS) & COUNTER_MAX);
    }

    /** The index of the node that issued {@code timestamp}. */
    public static int nodeOf(long timestamp) {
        return (int) (timestamp & NODE_MAX);
    }

    /** The timestamp with the given parts, node 0. */
    public static long timestampOf(long millis, int counter) {
        return timestampOf(millis, counter, 0);
    }

    /** The timestamp with the given parts. */
    public static long timestampOf(long millis, int counter, int node) {
        if (millis < 0 || millis > MILLIS_MAX || counter < 0 || counter > COUNTER_MAX || node < 0 || node > NODE_MAX) {
            throw new IllegalArgumentException("HLC parts out of range: millis=" + millis + " counter=" + counter + " node=" + node);
        }
        return millis << COUNTER_BITS | (long) counter << NODE_BITS | node;
    }

    /** The wall-clock instant carried by {@code timestamp} (the counter is dropped). */
    public static Instant instantOf(long timestamp) {
        return Instant.ofEpochMilli(millisOf(timestamp));
    }

    /** For logs and debugging: {@code 2025-01-01T00:00:00.001Z#3@2} (counter 3, node 2). */
    public static String format(long timestamp) {
        return instantOf(timestamp) + "#" + counterOf(timestamp) + "@" + nodeOf(timestamp);
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
        return "HybridLogicalClock{node=" + node + ", last=" + format(last.get()) + '}';
    }
}
