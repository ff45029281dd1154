package io.ringkv.http.hpack;

import java.util.Arrays;

/**
 * How each name's literals fared in the encoder's dynamic table, and the decision drawn from
 * it: after {@link #PROBE_INSERTIONS} insertions of a name whose entries were reused for fewer
 * than one in eight, its literals go without indexing, with one insertion in {@link
 * #PROBE_EVERY} kept to notice when its values start repeating. A value that never repeats (a
 * signature, a timestamp, a request id) only evicts entries that would have been reused.
 *
 * <p>Names get dense ids in first-seen order, so a table entry carries its name's id and a hit
 * is counted without looking the name up again. At most {@link #NAMES_TRACKED_MAX} names are
 * tracked, never forgotten; a name past that has no id and is always worth indexing.
 *
 * <p>Threading: not thread-safe; owned by one encoder.
 */
final class NameUses {
    /** The id of a name that is not tracked. */
    static final int UNTRACKED = -1;
    /** Insertions of a name before its reuse rate decides whether it stays indexed. */
    static final int PROBE_INSERTIONS = 16;
    /** While a name goes unindexed, one of this many of its literals is still inserted. */
    static final int PROBE_EVERY = 64;
    /** Counts are halved at this many insertions, so the rate follows recent traffic. */
    private static final int DECAY_AT = 1024;
    /** Keeps a hit count from overflowing on a name reused for ever; far above any decision. */
    private static final int REUSED_MAX = Integer.MAX_VALUE / 16;
    static final int NAMES_TRACKED_MAX = 256;
    private static final int INITIAL_NAMES = 16;

    private String[] names = new String[INITIAL_NAMES];
    private int[] inserted = new int[INITIAL_NAMES];
    private int[] reused = new int[INITIAL_NAMES];
    private int count;
    /** Open addressing, linear probing, at most half full: id + 1 per slot, 0 when empty. */
    private int[] slots = new int[2 * INITIAL_NAMES];

    /** The id of {@code name}, tracking it from now on if there is room; else {@link #UNTRACKED}. */
    int idOf(String name) {
        int hash = name.hashCode();
        int mask = slots.length - 1;
        for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
            int id = slots[slot] - 1;
            if (id < 0) {
                return count < NAMES_TRACKED_MAX ? track(name, slot) : UNTRACKED;
            }
            if (names[id].equals(name)) {
                return id;
            }
        }
    }

    /** Counts a literal of the name about to be sent; whether it should enter the table. */
    boolean worthIndexing(int id) {
        if (id == UNTRACKED) {
            return true;
        }
        if (++inserted[id] >= DECAY_AT) {
            inserted[id] /= 2;
            reused[id] /= 2;
        }
        boolean rarelyReused = inserted[id] > PROBE_INSERTIONS && reused[id] * 8 < inserted[id];
        return !rarelyReused || inserted[id] % PROBE_EVERY == 0;
    }

    /** Counts a table hit on an entry of the name. */
    void hit(int id) {
        if (id != UNTRACKED && reused[id] < REUSED_MAX) {
            reused[id]++;
        }
    }

    private int track(String name, int slot) {
        int id = count++;
        if (id == names.length) {
            names = Arrays.copyOf(names, id * 2);
            inserted = Arrays.copyOf(inserted, id * 2);
            reused = Arrays.copyOf(reused, id * 2);
        }
        names[id] = name;
        slots[slot] = id + 1;
        if (count * 2 > slots.length) {
            rehash(slots.length * 2);
        }
        return id;
    }

    private void rehash(int size) {
        slots = new int[size];
        for (int id = 0; id < count; id++) {
            int slot = spread(names[id].hashCode()) & (size - 1);
            while (slots[slot] != 0) {
                slot = (slot + 1) & (size - 1);
            }
            slots[slot] = id + 1;
        }
    }

    private static int spread(int hash) {
        return hash ^ (hash >>> 16);
    }
}
