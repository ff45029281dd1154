package io.ringkv.http.h2;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * A map from HTTP/2 stream id (1 to 2^31-1, RFC 9113 §5.1.1) to a value, with the ids unboxed:
 * open addressing with linear probing in two parallel arrays, at most half full, and removal
 * by shifting the following entries back (no tombstones, so a long-lived connection that opens
 * and closes millions of streams never degrades).
 *
 * <p>Why not a {@code HashMap<Integer, V>}: stream ids pass 127 after 64 streams, so every
 * lookup, insertion and removal boxed its id, and each entry was a node of its own. A connection
 * looks its streams up several times per request, on both ends, and carries a node's replica
 * calls by the million.
 *
 * <p>Threading: none; the owner confines it to one thread or guards it with its lock.
 *
 * @param <V> the value type; {@code null} values are not stored
 */
public final class StreamIdMap<V> {
    private static final int MIN_CAPACITY = 16;
    /** Spreads the ids, which step by 2, over the table (a Fibonacci multiplier). */
    private static final int GOLDEN = 0x9E3779B9;

    /** 0 marks a free slot: 0 is the connection, never a stream. */
    private int[] keys;
    private Object[] values;
    private int size;

    public StreamIdMap() {
        keys = new int[MIN_CAPACITY];
        values = new Object[MIN_CAPACITY];
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The value of {@code id}, or {@code null}; any id may be asked for, 0 and negative ones included. */
    @SuppressWarnings("unchecked")
    public V get(int id) {
        if (id <= 0) {
            return null;
        }
        int mask = keys.length - 1;
        for (int i = slot(id, mask); ; i = (i + 1) & mask) {
            int key = keys[i];
            if (key == id) {
                return (V) values[i];
            }
            if (key == 0) {
                return null;
            }
        }
    }

    public boolean containsKey(int id) {
        return get(id) != null;
    }

    /**
     * Maps {@code id} to {@code value} and returns the value it had, or {@code null}.
     *
     * @throws IllegalArgumentException if {@code id} is not a stream id
     * @throws NullPointerException     if {@code value} is null
     */
    @SuppressWarnings("unchecked")
    public V put(int id, V value) {
        if (id <= 0) {
            throw new IllegalArgumentException("not a stream id: " + id);
        }
        if (value == null) {
            throw new NullPointerException("value");
        }
        int mask = keys.length - 1;
        int i = slot(id, mask);
        for (; keys[i] != 0; i = (i + 1) & mask) {
            if (keys[i] == id) {
                V previous = (V) values[i];
                values[i] = value;
                return previous;
            }
        }
        keys[i] = id;
        values[i] = value;
        if (++size > keys.length >>> 1) {
            grow();
        }
        return null;
    }

    /** Removes {@code id}'s entry and returns its value, or {@code null} if it had none. */
    @SuppressWarnings("unchecked")
    public V remove(int id) {
        if (id <= 0) {
            return null;
        }
        int mask = keys.length - 1;
        int i = slot(id, mask);
        while (keys[i] != id) {
            if (keys[i] == 0) {
                return null;
            }
            i = (i + 1) & mask;
        }
        V removed = (V) values[i];
        size--;
        // Backward shift: move every later entry of the probe run that may sit at i into it,
        // so that a lookup never meets a gap before its key.
        int gap = i;
        for (int j = (gap + 1) & mask; keys[j] != 0; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            // The entry at j may move to gap when its home slot is not in (gap, j], cyclically.
            boolean homeAfterGap = gap <= j ? (home > gap && home <= j) : (home > gap || home <= j);
            if (!homeAfterGap) {
                keys[gap] = keys[j];
                values[gap] = values[j];
                gap = j;
            }
        }
        keys[gap] = 0;
        values[gap] = null;
        return removed;
    }

    public void clear() {
        if (size > 0) {
            Arrays.fill(keys, 0);
            Arrays.fill(values, null);
            size = 0;
        }
    }

    /** Calls {@code action} with every value; {@code action} must not change this map. */
    @SuppressWarnings("unchecked")
    public void forEachValue(Consumer<? super V> action) {
        int[] k = keys;
        Object[] v = values;
        for (int i = 0; i < k.length; i++) {
            if (k[i] != 0) {
                action.accept((V) v[i]);
            }
        }
    }

    /** The values now, in a list of their own: the map may change while the list is walked. */
    @SuppressWarnings("unchecked")
    public List<V> values() {
        List<V> copy = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                copy.add((V) values[i]);
            }
        }
        return copy;
    }

    /** The ids now, in an array of their own. */
    public int[] ids() {
        int[] ids = new int[size];
        int n = 0;
        for (int key : keys) {
            if (key != 0) {
                ids[n++] = key;
            }
        }
        return ids;
    }

    private void grow() {
        int[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new int[oldKeys.length << 1];
        values = new Object[oldKeys.length << 1];
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                int j = slot(oldKeys[i], mask);
                while (keys[j] != 0) {
                    j = (j + 1) & mask;
                }
                keys[j] = oldKeys[i];
                values[j] = oldValues[i];
            }
        }
    }

    private static int slot(int id, int mask) {
        int h = id * GOLDEN;
        return (h ^ (h >>> 16)) & mask;
    }

    @Override
    public String toString() {
        return "StreamIdMap" + Arrays.toString(ids());
    }
}
