package io.ringkv.http.hpack;

/**
 * The dynamic table, RFC 7541 §2.3.2 and §4: a FIFO of fields whose total size stays within
 * the capacity, newest at index 1. A ring buffer of entries, grown on demand.
 *
 * <p>Each entry also has an absolute insertion number (0 for the first field ever added), so
 * an encoder can remember where a field went without rescanning the table.
 *
 * <p>Threading: not thread-safe; owned by one encoder or one decoder.
 */
final class DynamicTable {
    /** Told about each entry as it is evicted, so that encoder indexes can forget it. */
    interface EvictionListener {
        void evicted(HeaderField field, long insertion);
    }

    private final EvictionListener listener;
    private HeaderField[] ring = new HeaderField[16];
    private int head; // slot of the oldest entry
    private int length;
    private long inserted;
    private int size;
    private int capacity;

    DynamicTable(int capacity, EvictionListener listener) {
        this.capacity = capacity;
        this.listener = listener;
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
        return ring[(head + length - index) % ring.length];
    }

    /** The 1-based index of the entry with this insertion number, or 0 if it is gone. */
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
     * empties the table and is not added.
     */
    void add(HeaderField field) {
        int fieldSize = field.size();
        if (fieldSize > capacity) {
            evictUntil(0);
            return;
        }
        evictUntil(capacity - fieldSize);
        if (length == ring.length) {
            grow();
        }
        ring[(head + length) % ring.length] = field;
        length++;
        inserted++;
        size += fieldSize;
    }

    private void evictUntil(int targetSize) {
        while (size > targetSize) {
            HeaderField oldest = ring[head];
            ring[head] = null;
            long insertion = inserted - length;
            head = (head + 1) % ring.length;
            length--;
            size -= oldest.size();
            if (listener != null) {
                listener.evicted(oldest, insertion);
            }
        }
    }

    private void grow() {
        HeaderField[] bigger = new HeaderField[ring.length * 2];
        for (int i = 0; i < length; i++) {
            bigger[i] = ring[(head + i) % ring.length];
        }
        ring = bigger;
        head = 0;
    }
}
