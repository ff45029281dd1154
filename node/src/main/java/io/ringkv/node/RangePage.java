package io.ringkv.node;

import io.ringkv.cluster.LiveRangeCursor;
import io.ringkv.http.server.ChunkSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One page of a range, read in full before its answer starts: the answer's head must say whether
 * a next page exists ({@code Link}), and only reading one record past the page tells. So the page's
 * chunks are held in memory, at most {@code limit} of them and, past the first, no more than
 * {@code bytesMax} in all: a page of large values ends early rather than holding
 * {@code limit} of them, and still names the next page, so a client reads on by the link and
 * never by counting.
 *
 * @param chunks    the page's records, formatted
 * @param nextStart where the next page starts, or empty when the range ends with this page
 */
record RangePage(List<ByteBuffer> chunks, Optional<byte[]> nextStart) {

    /** The default {@code bytesMax}: 4 MiB of chunks per page, plus the one that crosses it. */
    static final long BYTES_MAX = 4L << 20;

    /**
     * Reads a page from {@code records} (from its current position), one record past it. Does not
     * close the cursor. Blocks while a peer's stream is behind, so call it on a handler thread.
     *
     * @param limit       the most records, at least 1
     * @param keyBytesMax the longest key there can be (for the next page's start, see {@link KeySuccessor})
     */
    static RangePage read(LiveRangeCursor records, RangeFormat format, int limit, long bytesMax, int keyBytesMax)
            throws IOException {
        List<ByteBuffer> chunks = new ArrayList<>(Math.min(limit, 256));
        long bytes = 0;
        int lastKeyLength = -1;
        while (chunks.size() < limit && bytes < bytesMax && records.advance()) {
            ByteBuffer chunk = format.chunk(records.key(), records.value());
            chunks.add(chunk);
            bytes += chunk.remaining();
            lastKeyLength = records.key().length;
        }
        if (chunks.isEmpty() || !records.advance()) {
            return new RangePage(List.copyOf(chunks), Optional.empty());
        }
        // Every chunk starts with its key; the cursor's own arrays have moved on by now.
        byte[] lastKey = new byte[lastKeyLength];
        chunks.getLast().get(0, lastKey);
        return new RangePage(List.copyOf(chunks), KeySuccessor.after(lastKey, keyBytesMax));
    }

    /** The page as a streamed body, one chunk per record, as an unpaged range sends them. */
    ChunkSource body() {
        ArrayDeque<ByteBuffer> remaining = new ArrayDeque<>(chunks.size());
        chunks.forEach(chunk -> remaining.add(chunk.duplicate()));
        return new ChunkSource() {
            @Override
            public ByteBuffer next() {
                return remaining.poll();
            }

            @Override
            public void close() {
                remaining.clear();
            }
        };
    }
}
