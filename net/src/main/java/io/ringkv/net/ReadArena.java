package io.ringkv.net;

import java.nio.ByteBuffer;

/**
 * Where an event loop's socket reads land. Reads go into one large heap buffer, front to back.
 * A read whose bytes were all parsed and dropped leaves the space to the next read; a read from
 * which the handler {@linkplain Connection#retain kept slices} (an HTTP/2 DATA payload handed to
 * a body subscriber, say) gives that part of the buffer up for good, and the next read starts
 * after it. When too little space is left the loop starts a fresh buffer; the old one lives on
 * only as long as the slices that point into it.
 *
 * <p>Why: body bytes reach subscribers as slices of what the socket read, with no copy, while the
 * common case (headers parsed and dropped) still reuses one buffer for every read.
 *
 * <p>Threading: confined to the loop thread.
 */
final class ReadArena {
    private final int capacity;
    private final int freeMin;
    private ByteBuffer buffer;
    private int base;
    private ByteBuffer current;
    private boolean retained;

    /**
     * @param capacity the size of each buffer (and so the largest unparsed message a connection may hold)
     * @param freeMin  below this much free space a read gets a fresh buffer instead of the tail
     */
    ReadArena(int capacity, int freeMin) {
        this.capacity = capacity;
        this.freeMin = Math.min(freeMin, capacity);
        this.buffer = ByteBuffer.allocate(capacity);
    }

    int capacity() {
        return capacity;
    }

    /**
     * The space for the next read: an empty buffer (position 0) of at least {@code needed} bytes,
     * which the caller fills and hands to a handler.
     */
    ByteBuffer begin(int needed) {
        if (capacity - base < Math.max(freeMin, needed)) {
            buffer = ByteBuffer.allocate(capacity);
            base = 0;
        }
        retained = false;
        current = buffer.slice(base, capacity - base);
        return current;
    }

    /**
     * Whether {@code slice} may share the memory of the read in progress. A read-only view hides
     * its array, so it counts as shared: giving up the region is safe, overwriting it is not.
     */
    boolean mayBeInCurrentRead(ByteBuffer slice) {
        if (current == null) {
            return false;
        }
        return slice.isReadOnly() || !slice.hasArray() || slice.array() == current.array();
    }

    /** A handler keeps part of the read in progress beyond its callback. */
    void markRetained() {
        retained = true;
    }

    /** The read is over: its bytes up to {@code filled} stay untouched if any were retained. */
    void end(int filled) {
        if (retained) {
            base += filled;
        }
        current = null;
    }
}
