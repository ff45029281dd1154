package io.ringkv.http.h2;

/**
 * The last {@code capacity} stream ids added, the oldest forgotten first: a memory of closed
 * streams of fixed size, for telling late frames on them apart (RFC 9113 §5.1). The ids sit
 * unboxed in a ring; a lookup scans it, newest first. That is cheap at the sizes used here and is
 * only paid for frames on streams that are no longer live.
 *
 * <p>Threading: owned by its {@link StreamRegistry}.
 */
final class RecentStreamIds {
    private final int[] ids;
    /** Where the next id goes. */
    private int next;
    private int size;

    RecentStreamIds(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.ids = new int[capacity];
    }

    void add(int id) {
        ids[next] = id;
        next = (next + 1) % ids.length;
        if (size < ids.length) {
            size++;
        }
    }

    boolean contains(int id) {
        for (int back = 1; back <= size; back++) {
            if (ids[Math.floorMod(next - back, ids.length)] == id) {
                return true;
            }
        }
        return false;
    }
}
