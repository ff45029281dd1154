package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The hash chains against a plain list kept by RFC 7541 §4's rules: after every add, eviction,
 * capacity change and growth, each lookup finds the newest matching entry's index (or none).
 */
class EncoderTableTest {

    @Test
    void lookupsMatchAScanOfTheTableThroughEvictionGrowthAndResizes() {
        Random random = new Random(4);
        EncoderTable table = new EncoderTable(4096);
        Model model = new Model(4096);
        for (int step = 0; step < 50_000; step++) {
            if (step % 997 == 0) {
                int capacity = new int[] {0, 64, 500, 4096, 2000}[random.nextInt(5)];
                table.capacity(capacity);
                model.capacity(capacity);
            }
            // Few names and values, so that matches, near-misses and bucket collisions are common.
            String name = "n" + random.nextInt(40);
            String value = "v".repeat(random.nextInt(3)) + random.nextInt(8);
            HeaderField probe = new HeaderField(name, value);
            assertThat("step " + step, table.indexOf(name, value), equalTo(model.indexOf(probe, false)));
            assertThat("step " + step, table.indexOfName(name), equalTo(model.indexOf(probe, true)));
            if (random.nextInt(3) > 0) {
                int useId = random.nextInt(1000);
                HeaderField field = random.nextInt(500) == 0 ? new HeaderField(name, "x".repeat(5000)) : probe;
                assertThat(table.add(field, useId), equalTo(model.add(field, useId)));
                if (model.entries.peekFirst() == field) {
                    assertThat(table.useId(1), equalTo(useId));
                }
            }
            assertThat(table.size(), equalTo(model.size));
        }
    }

    @Test
    void growthKeepsEveryEntryFindableWithItsUseId() {
        EncoderTable table = new EncoderTable(1 << 16);
        for (int i = 0; i < 1_000; i++) {
            table.add(new HeaderField("name-" + i, "value-" + i), i);
        }
        for (int i = 0; i < 1_000; i++) {
            int index = 1_000 - i;
            assertThat(table.indexOf("name-" + i, "value-" + i), equalTo(index));
            assertThat(table.indexOfName("name-" + i), equalTo(index));
            assertThat(table.useId(index), equalTo(i));
        }
        assertThat(table.indexOf("name-1", "value-2"), equalTo(0));
    }

    @Test
    void aFieldBiggerThanTheTableEmptiesItAndIsNotAdded() {
        EncoderTable table = new EncoderTable(100);
        table.add(new HeaderField("a", "1"), 0);
        assertThat(table.indexOf("a", "1"), equalTo(1));
        assertThat(table.add(new HeaderField("b", "x".repeat(100)), 1), equalTo(false));
        assertThat(table.size(), equalTo(0));
        assertThat(table.indexOf("a", "1"), equalTo(0));
        assertThat(table.indexOfName("b"), equalTo(0));
    }

    /** The newest-first list RFC 7541 §2.3.2 describes, searched by brute force. */
    private static final class Model {
        final Deque<HeaderField> entries = new ArrayDeque<>();
        int capacity;
        int size;

        Model(int capacity) {
            this.capacity = capacity;
        }

        void capacity(int newCapacity) {
            capacity = newCapacity;
            evictUntil(capacity);
        }

        boolean add(HeaderField field, int useId) {
            if (field.size() > capacity) {
                evictUntil(0);
                return false;
            }
            evictUntil(capacity - field.size());
            entries.addFirst(field);
            size += field.size();
            return true;
        }

        int indexOf(HeaderField probe, boolean nameOnly) {
            List<HeaderField> list = new ArrayList<>(entries);
            for (int i = 0; i < list.size(); i++) {
                HeaderField entry = list.get(i);
                if (entry.name().equals(probe.name()) && (nameOnly || entry.value().equals(probe.value()))) {
                    return i + 1;
                }
            }
            return 0;
        }

        private void evictUntil(int target) {
            while (size > target) {
                size -= entries.removeLast().size();
            }
        }
    }
}
