package io.ringkv.store;

import java.util.Arrays;

/**
 * The one record stored per key: a value or a tombstone, stamped with a hybrid-logical-clock
 * timestamp (see {@link HybridLogicalClock}), and for a value written with a time to live, the
 * instant it expires. Last write wins by {@link #compareTo}, expired or not: an expired record
 * still shadows every older write of its key, as a tombstone does.
 *
 * @param timestamp       HLC timestamp, assigned once by the coordinator of the write
 * @param tombstone       true when the key was deleted; {@code value} is then empty
 * @param value           the value bytes (any bytes, possibly empty); not copied, do not modify
 * @param expiresAtMillis epoch millis from which the value reads as absent, or {@link #NEVER};
 *                        the coordinator sets it with the timestamp, so one timestamp names one
 *                        expiry. A tombstone never expires.
 */
public record Record(long timestamp, boolean tombstone, byte[] value, long expiresAtMillis) implements Comparable<Record> {

    /** The {@link #expiresAtMillis} of a record that never expires. */
    public static final long NEVER = 0;

    private static final byte[] NO_BYTES = new byte[0];

    public Record {
        if (value == null || (tombstone && value.length != 0)) {
            throw new IllegalArgumentException("a value is required, and a tombstone has none");
        }
        if (expiresAtMillis < 0 || (tombstone && expiresAtMillis != NEVER)) {
            throw new IllegalArgumentException("an expiry is epoch millis and only a value has one, got " + expiresAtMillis
                    + (tombstone ? " on a tombstone" : ""));
        }
    }

    /** A record that never expires. */
    public Record(long timestamp, boolean tombstone, byte[] value) {
        this(timestamp, tombstone, value, NEVER);
    }

    public static Record value(long timestamp, byte[] value) {
        return new Record(timestamp, false, value, NEVER);
    }

    /** A value that reads as absent from {@code expiresAtMillis} (epoch millis, positive) on. */
    public static Record expiring(long timestamp, byte[] value, long expiresAtMillis) {
        if (expiresAtMillis <= 0) {
            throw new IllegalArgumentException("an expiry must be positive epoch millis, got " + expiresAtMillis);
        }
        return new Record(timestamp, false, value, expiresAtMillis);
    }

    public static Record tombstone(long timestamp) {
        return new Record(timestamp, true, NO_BYTES, NEVER);
    }

    /** Whether this record was written with a time to live. */
    public boolean expires() {
        return expiresAtMillis != NEVER;
    }

    /** Whether this record has expired at {@code nowMillis} (epoch millis): its expiry is that instant or earlier. */
    public boolean expiredAt(long nowMillis) {
        return expires() && nowMillis >= expiresAtMillis;
    }

    /** Whether a reader at {@code nowMillis} sees a value: not a tombstone and not expired. */
    public boolean liveAt(long nowMillis) {
        return !tombstone && !expiredAt(nowMillis);
    }

    /**
     * Freshness order: a higher timestamp is newer. Ties (two coordinators stamping the same
     * instant) break deterministically so every replica picks the same winner: a tombstone beats
     * a value, then the lexicographically greater value wins, then the later expiry. (Timestamps
     * carry the issuing node, so a tie is one write seen twice; the order is total all the same.)
     */
    @Override
    public int compareTo(Record other) {
        int byTime = Long.compare(timestamp, other.timestamp);
        if (byTime != 0) {
            return byTime;
        }
        if (tombstone != other.tombstone) {
            return tombstone ? 1 : -1;
        }
        int byValue = Arrays.compareUnsigned(value, other.value);
        return byValue != 0 ? byValue : Long.compare(expiresAtMillis, other.expiresAtMillis);
    }

    public boolean isNewerThan(Record other) {
        return compareTo(other) > 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Record r && r.timestamp == timestamp && r.tombstone == tombstone
                && r.expiresAtMillis == expiresAtMillis && Arrays.equals(r.value, value);
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(timestamp) * 31 + Arrays.hashCode(value) + (tombstone ? 1 : 0)) * 31 + Long.hashCode(expiresAtMillis);
    }

    @Override
    public String toString() {
        return "Record{ts=" + timestamp + (tombstone ? ", tombstone" : ", " + value.length + " bytes")
                + (expires() ? ", expires " + expiresAtMillis : "") + '}';
    }
}
