package io.ringkv.http.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StreamIdMapTest {

    /** Random puts and removes, checked against a HashMap after each: removal's back-shifting included. */
    @Test
    void behavesAsAHashMapUnderRandomPutsAndRemoves() {
        Random random = new Random(20261129);
        for (int round = 0; round < 50; round++) {
            StreamIdMap<String> map = new StreamIdMap<>();
            Map<Integer, String> expected = new HashMap<>();
            // Few distinct ids per round, so that probe runs form, wrap the table and are cut by removals.
            int idRange = 1 + random.nextInt(round < 25 ? 64 : 5_000);
            for (int op = 0; op < 4_000; op++) {
                int id = 1 + random.nextInt(idRange) * (random.nextBoolean() ? 2 : 1);
                if (random.nextInt(3) == 0) {
                    assertEquals(expected.remove(id), map.remove(id), "remove " + id);
                } else {
                    String value = "v" + op;
                    assertEquals(expected.put(id, value), map.put(id, value), "put " + id);
                }
                assertEquals(expected.size(), map.size());
                int probe = 1 + random.nextInt(idRange * 2);
                assertEquals(expected.get(probe), map.get(probe), "get " + probe);
            }
            for (Map.Entry<Integer, String> entry : expected.entrySet()) {
                assertEquals(entry.getValue(), map.get(entry.getKey()));
            }
            assertEquals(new HashSet<>(expected.values()), new HashSet<>(map.values()));
            Set<Integer> ids = new HashSet<>();
            for (int id : map.ids()) {
                ids.add(id);
            }
            assertEquals(expected.keySet(), ids);
            List<String> seen = new ArrayList<>();
            map.forEachValue(seen::add);
            assertEquals(new HashSet<>(expected.values()), new HashSet<>(seen));
            assertEquals(expected.size(), seen.size());
        }
    }

    /** A connection's ids climb by two forever while few are open: the table stays small and every id is found. */
    @Test
    void aConnectionsWorthOfStreamsOpenedAndClosedInTurn() {
        StreamIdMap<Integer> map = new StreamIdMap<>();
        int open = 100;
        for (int id = 1; id < 2_000_000; id += 2) {
            map.put(id, id);
            if (id > 2 * open) {
                int closing = id - 2 * open;
                assertEquals(closing, map.remove(closing));
            }
        }
        assertEquals(open, map.size());
        IntStream.iterate(1_999_999, id -> id > 1_999_999 - 2 * open, id -> id - 2)
                .forEach(id -> assertEquals(id, map.get(id)));
        assertNull(map.get(1));
    }

    @Test
    void idsThatNameNoStreamAreAbsentAndCannotBeStored() {
        StreamIdMap<String> map = new StreamIdMap<>();
        map.put(Integer.MAX_VALUE, "last");
        assertNull(map.get(0));
        assertNull(map.get(-1));
        assertNull(map.remove(0));
        assertFalse(map.containsKey(Integer.MIN_VALUE));
        assertTrue(map.containsKey(Integer.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> map.put(0, "connection"));
        assertThrows(IllegalArgumentException.class, () -> map.put(-3, "negative"));
        assertThrows(NullPointerException.class, () -> map.put(3, null));
        assertEquals(1, map.size());
    }
}
