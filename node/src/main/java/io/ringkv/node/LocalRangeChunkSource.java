package io.ringkv.node;

import io.ringkv.http.server.ChunkSource;
import io.ringkv.store.RangeCursor;
import io.ringkv.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Streams live records of one local range as {@code key '\n' value} chunks, skipping tombstones.
 * Reads the cursor lazily, one record per {@link #next()}, so memory does not grow with the range.
 *
 * <p>Threading: as {@link ChunkSource}: one thread at a time, on the handler executor.
 */
final class LocalRangeChunkSource implements ChunkSource {
    private final RangeCursor cursor;

    LocalRangeChunkSource(RangeCursor cursor) {
        this.cursor = cursor;
    }

    @Override
    public ByteBuffer next() throws IOException {
        try {
            while (cursor.next()) {
                if (!cursor.record().tombstone()) {
                    return RangeChunk.encode(cursor.key(), cursor.record().value());
                }
            }
            return null;
        } catch (StoreException e) {
            throw new IOException("range read failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        cursor.close();
    }
}
