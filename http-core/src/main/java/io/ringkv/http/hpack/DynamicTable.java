package io.ringkv.http.hpack;

/**
 * The dynamic table, RFC 7541 §2.3.2 and §4: a FIFO of fields whose total size stays within
 * the capacity, newest at index 1.
 *
 * <p>Each entry has an absolute insertion number (0 for the first field ever added; never
 * reused), and lives in ring slot {@code insertion & (ring.length - 1)}: the ring is a power of
 * two at least as long as the table, so consecutive live entries never share a slot and an
 * index or an insertion number finds its entry with a mask, not a division. The encoder's
 * {@link EncoderTable} links entries by insertion number and keys its own per-entry arrays
 * the same way.
 *
 * <p>Threading: not thread-safe; owned by one encoder or one decoder.
 */
final class DynamicTable {
    private HeaderField[] ring = new HeaderField[16];
    private long inserted;
    private int length;
    private int size;
    private int capacity;

    DynamicTable(int capacity) {
        this.capacity = capacity;
    }

    int length() {
        return length;
    }

    int size() {
        return size;
    }

    int capacity() {
        return capacity;
    }

    /** Absolute insertion number the next added field will get. */
    long inserted() {
        return inserted;
    }

    /** The entry at a 1-based index within this table (1 = newest). */
    HeaderField get(int index) {
        return ring[(int) (inserted - index) & (ring.length - 1)];
    }

    /** The entry with this insertion number, which must still be in the table. */
    HeaderField byInsertion(long insertion) {
        return ring[(int) insertion & (ring.length - 1)];
    }

    /**
     * The 1-based index of the entry with this insertion number, or 0 if it was evicted (or is
     * not an insertion number yet: any negative number is never in the table).
     */
    int indexOfInsertion(long insertion) {
        long index = inserted - insertion;
        return index >= 1 && index <= length ? (int) index : 0;
    }

    /** RFC 7541 §4.3: a smaller capacity evicts from the oldest end. */
    void capacity(int newCapacity) {
        capacity = newCapacity;
        evictUntil(capacity);
    }

    /**
     * RFC 7541 §4.4: evict until the field fits, then add it; a field larger than the capacity
     * empties the table and is not added. Returns whether it was added.
     */
    boolean add(HeaderField field) {
        int fieldSize = field.size();
        if (fieldSize > capacity) {
            evictUntil(0);
            return false;
        }
        evictUntil(capacity - fieldSize);
        if (length == ring.length) {
            grow();
        }
        ring[(int) inserted & (ring.length - 1)] = field;
        length++;
        inserted++;
        size += fieldSize;
        return true;
    }

    private void evictUntil(int targetSize) {
        while (size > targetSize) {
            int oldest = (int) (inserted - length) & (ring.length - 1);
            size -= ring[oldest].size();
            ring[oldest] = null;
            length--;
        }
    }

    private void grow() {
        HeaderField[] bigger = new HeaderField[ring.length * 2];
        for (long insertion = inserted - length; insertion < inserted; insertion++) {
            bigger[(int) insertion & (bigger.length - 1)] = ring[(int) insertion & (ring.length - 1)];
        }
        ring = bigger;
    }
}
