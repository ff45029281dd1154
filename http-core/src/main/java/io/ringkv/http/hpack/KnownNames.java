package io.ringkv.http.hpack;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the encoder knows about a field name before it looks at the value, in one lookup: the
 * static table entries with that name, and whether its configuration sends the name never
 * indexed or without indexing. A name known for none of these is 0, which is what most custom
 * names cost: one probe that meets an empty slot.
 *
 * <p>A name's info packs the first static index with that name (bits 0-7, 0 if none), how many
 * static entries have it (bits 8-15; RFC 7541 Appendix A lists them next to each other) and the
 * two flags. Open addressing with linear probing over an array at most a quarter full.
 *
 * <p>Immutable; the default configuration's instance is shared by all encoders.
 */
final class KnownNames {
    static final int SENSITIVE = 1 << 16;
    static final int UNINDEXED = 1 << 17;

    private final String[] names;
    private final int[] hashes;
    private final int[] infos;

    KnownNames(Set<String> sensitive, Set<String> unindexed) {
        Map<String, Integer> info = new LinkedHashMap<>();
        for (int index = 1; index <= StaticTable.LENGTH; index++) {
            String name = StaticTable.get(index).name();
            Integer first = info.get(name);
            if (first != null && (first & 0xff) + (first >>> 8) != index) {
                throw new IllegalStateException("static entries of " + name + " are not adjacent");
            }
            info.put(name, first == null ? index | 1 << 8 : first + (1 << 8));
        }
        sensitive.forEach(name -> info.merge(name, SENSITIVE, (a, b) -> a | b));
        unindexed.forEach(name -> info.merge(name, UNINDEXED, (a, b) -> a | b));
        int size = Integer.highestOneBit(info.size() * 4 - 1) << 1;
        names = new String[size];
        hashes = new int[size];
        infos = new int[size];
        info.forEach((name, bits) -> {
            int slot = spread(name.hashCode()) & (size - 1);
            while (names[slot] != null) {
                slot = (slot + 1) & (size - 1);
            }
            names[slot] = name;
            hashes[slot] = name.hashCode();
            infos[slot] = bits;
        });
    }

    /** The info of {@code name}, 0 if it has none. */
    int of(String name) {
        int hash = name.hashCode();
        int mask = names.length - 1;
        for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
            String known = names[slot];
            if (known == null) {
                return 0;
            }
            if (known == name || hashes[slot] == hash && known.equals(name)) {
                return infos[slot];
            }
        }
    }

    /** The static index of the name, or 0. */
    static int nameIndex(int info) {
        return info & 0xff;
    }

    /** The static index of the entry with the name and this value, or 0. */
    static int index(int info, String value) {
        int first = info & 0xff;
        int end = first + ((info >>> 8) & 0xff);
        for (int index = first; index < end; index++) {
            String known = StaticTable.get(index).value();
            // Most static values are empty: comparing lengths first turns those down cheaply.
            if (known.length() == value.length() && EncoderTable.same(known, value)) {
                return index;
            }
        }
        return 0;
    }

    private static int spread(int hash) {
        return hash ^ (hash >>> 16);
    }
}
