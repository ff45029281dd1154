package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.LiveRangeCursor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Cutting a page from a range: the count, the byte bound, and where the next page starts. */
class RangePageTest {
    private static final int KEY_BYTES_MAX = 8;

    @Test
    void aPageHoldsLimitRecordsAndNamesTheKeyAfterTheLastWhenMoreFollow() throws Exception {
        Cursor records = new Cursor(List.of("a", "b", "c"), 1);
        RangePage page = RangePage.read(records, RangeFormat.KEYS_AND_VALUES, 2, RangePage.BYTES_MAX, KEY_BYTES_MAX);
        assertThat(texts(page), contains("a\nv", "b\nv"));
        assertThat(new String(page.nextStart().orElseThrow(), StandardCharsets.ISO_8859_1), is("b\0"));
    }

    @Test
    void aPageThatReachesTheEndNamesNoNextPage() throws Exception {
        RangePage page = RangePage.read(new Cursor(List.of("a", "b"), 1), RangeFormat.KEYS_ONLY, 2, RangePage.BYTES_MAX, KEY_BYTES_MAX);
        assertThat(texts(page), contains("a\n", "b\n"));
        assertThat(page.nextStart(), is(Optional.empty()));
        RangePage empty = RangePage.read(new Cursor(List.of(), 1), RangeFormat.KEYS_ONLY, 2, RangePage.BYTES_MAX, KEY_BYTES_MAX);
        assertThat(empty.chunks().isEmpty(), is(true));
        assertThat(empty.nextStart(), is(Optional.empty()));
    }

    @Test
    void aPageEndsOnceItHoldsTheByteBoundAndStillNamesTheNextOne() throws Exception {
        // Chunks of 1 + 1 + 4 = 6 bytes against a bound of 10: the second crosses it and is the last.
        Cursor records = new Cursor(List.of("a", "b", "c", "d"), 4);
        RangePage page = RangePage.read(records, RangeFormat.KEYS_AND_VALUES, 100, 10, KEY_BYTES_MAX);
        assertThat(page.chunks().size(), is(2));
        assertThat(new String(page.nextStart().orElseThrow(), StandardCharsets.ISO_8859_1), is("b\0"));
        RangePage huge = RangePage.read(new Cursor(List.of("a", "b"), 50), RangeFormat.KEYS_AND_VALUES, 100, 10, KEY_BYTES_MAX);
        assertThat("a record larger than the bound is sent alone", huge.chunks().size(), is(1));
    }

    @Test
    void theBodySendsEachChunkOnceAndThePageKeepsItsChunks() throws Exception {
        RangePage page = RangePage.read(new Cursor(List.of("a", "b"), 1), RangeFormat.KEYS_ONLY, 5, RangePage.BYTES_MAX, KEY_BYTES_MAX);
        try (var body = page.body()) {
            assertThat(text(body.next()), is("a\n"));
            assertThat(text(body.next()), is("b\n"));
            assertThat(body.next() == null, is(true));
        }
        assertThat(texts(page), contains("a\n", "b\n"));
    }

    private static List<String> texts(RangePage page) {
        return page.chunks().stream().map(chunk -> text(chunk.duplicate())).toList();
    }

    private static String text(ByteBuffer chunk) {
        byte[] bytes = new byte[chunk.remaining()];
        chunk.get(bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** Keys in order, each with a value of {@code valueBytes} 'v's; one key array reused, as a wire reader may. */
    private static final class Cursor implements LiveRangeCursor {
        private final List<String> keys;
        private final byte[] value;
        private byte[] key = new byte[0];
        private int index = -1;

        Cursor(List<String> keys, int valueBytes) {
            this.keys = keys;
            this.value = "v".repeat(valueBytes).getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public boolean advance() {
            index++;
            if (index >= keys.size()) {
                java.util.Arrays.fill(key, (byte) '?');
                return false;
            }
            key = keys.get(index).getBytes(StandardCharsets.ISO_8859_1);
            return true;
        }

        @Override
        public byte[] key() {
            return key;
        }

        @Override
        public byte[] value() {
            return value;
        }

        @Override
        public void close() {
        }
    }
}
