package io.ringkv.http.hpack;

import java.util.Arrays;

/**
 * The encoder's dynamic table: a {@link DynamicTable} plus hash chains that find the newest
 * entry with a given name, or name and value, without allocating and without scanning the
 * table.
 *
 * <p>Each entry is linked into the chain of its name's bucket, newest first; a link is the
 * absolute insertion number of the next older entry in the bucket. Eviction touches no chain:
 * insertion numbers are never reused and chains only get older, so a walk ends at the first
 * number that is no longer in the table (the table says so in {@link
 * DynamicTable#indexOfInsertion}), and an empty bucket holds -1, which never is. The
 * per-entry arrays are keyed like the table's ring ({@code insertion & mask}) and are at least
 * as long as the table, so a live entry's slot is never reused.
 *
 * <p>Each entry also carries its value's hash, so a walk past entries of the same name with
 * other values compares ints, not strings, and the id its name has in {@link NameUses}, so a
 * hit is counted without looking the name up again.
 *
 * <p>Threading: not thread-safe; owned by one encoder.
 */
final class EncoderTable {
    private static final int INITIAL_SLOTS = 16;

    private final DynamicTable table;
    /** Newest insertion per bucket (a bucket per slot: chains average one entry), or -1. */
    private long[] heads;
    /** Per entry: the next older insertion in its bucket. */
    private long[] next;
    private int[] valueHashes;
    private int[] useIds;

    EncoderTable(int capacity) {
        this.table = new DynamicTable(capacity);
        allocate(INITIAL_SLOTS);
    }

    int size() {
        return table.size();
    }

    int capacity() {
        return table.capacity();
    }

    void capacity(int capacity) {
        table.capacity(capacity);
    }

    /** The 1-based index (within the dynamic table) of the newest entry {@code name: value}, or 0. */
    int indexOf(String name, String value) {
        int valueHash = value.hashCode();
        for (long at = heads[bucket(name)]; ; at = next[slot(at)]) {
            int index = table.indexOfInsertion(at);
            if (index == 0) {
                return 0;
            }
            if (valueHashes[slot(at)] == valueHash) {
                HeaderField entry = table.byInsertion(at);
                if (same(entry.value(), value) && same(entry.name(), name)) {
                    return index;
                }
            }
        }
    }

    /** The 1-based index of the newest entry named {@code name}, or 0. */
    int indexOfName(String name) {
        for (long at = heads[bucket(name)]; ; at = next[slot(at)]) {
            int index = table.indexOfInsertion(at);
            if (index == 0 || same(table.byInsertion(at).name(), name)) {
                return index;
            }
        }
    }

    /** Equal strings; the same instance (a repeated field, a constant) skips the comparison. */
    static boolean same(String a, String b) {
        return a == b || a.equals(b);
    }

    /** The {@link NameUses} id of the entry at this 1-based index. */
    int useId(int index) {
        return useIds[slot(table.inserted() - index)];
    }

    /** Adds the field (RFC 7541 §4.4); returns false if it was bigger than the whole table. */
    boolean add(HeaderField field, int useId) {
        long insertion = table.inserted();
        if (!table.add(field)) {
            return false;
        }
        if (table.length() > next.length) {
            grow();
        }
        link(field, insertion, useId);
        return true;
    }

    private void link(HeaderField field, long insertion, int useId) {
        int slot = slot(insertion);
        int bucket = bucket(field.name());
        next[slot] = heads[bucket];
        heads[bucket] = insertion;
        valueHashes[slot] = field.value().hashCode();
        useIds[slot] = useId;
    }

    /**
     * Doubles the arrays and relinks every entry but the newest (which add() links next),
     * oldest first so that chains stay newest first.
     */
    private void grow() {
        int[] oldUseIds = useIds;
        long newest = table.inserted() - 1;
        allocate(next.length * 2);
        for (long insertion = table.inserted() - table.length(); insertion < newest; insertion++) {
            HeaderField entry = table.get(table.indexOfInsertion(insertion));
            link(entry, insertion, oldUseIds[(int) insertion & (oldUseIds.length - 1)]);
        }
    }

    private void allocate(int slots) {
        heads = new long[slots];
        Arrays.fill(heads, -1);
        next = new long[slots];
        valueHashes = new int[slots];
        useIds = new int[slots];
    }

    private int slot(long insertion) {
        return (int) insertion & (next.length - 1);
    }

    private int bucket(String name) {
        int hash = name.hashCode();
        return (hash ^ (hash >>> 16)) & (heads.length - 1);
    }
}
