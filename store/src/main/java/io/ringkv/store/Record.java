package io.ringkv.store;

import java.util.Arrays;

/**
 * The one record stored per key: a value or a tombstone, stamped with a hybrid-logical-clock
 * timestamp (see {@link HybridLogicalClock}). Last write wins by {@link #compareTo}.
 *
 * @param timestamp HLC timestamp, assigned once by the coordinator of the write
 * @param tombstone true when the key was deleted; {@code value} is then empty
 * @param value     the value bytes (any bytes, possibly empty); not copied, do not modify
 */
public record Record(long timestamp, boolean tombstone, byte[] value) implements Comparable<Record> {

    private static final byte[] NO_BYTES = new byte[0];

    public Record {
        if (value == null || (tombstone && value.length != 0)) {
            throw new IllegalArgumentException("a value is required, and a tombstone has none");
        }
    }

    public static Record value(long timestamp, byte[] value) {
        return new Record(timestamp, false, value);
    }

    public static Record tombstone(long timestamp) {
        return new Record(timestamp, true, NO_BYTES);
    }

    /**
     * Freshness order: a higher timestamp is newer. Ties (two coordinators stamping the same
     * instant) break deterministically so every replica picks the same winner: a tombstone beats
     * a value, then the lexicographically greater value wins.
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
        return Arrays.compareUnsigned(value, other.value);
    }

    public boolean isNewerThan(Record other) {
        return compareTo(other) > 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Record r && r.timestamp == timestamp && r.tombstone == tombstone
                && Arrays.equals(r.value, value);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(timestamp) * 31 + Arrays.hashCode(value) + (tombstone ? 1 : 0);
    }

    @Override
    public String toString() {
        return "Record{ts=" + timestamp + (tombstone ? ", tombstone" : ", " + value.length + " bytes") + '}';
    }
}
