package io.ringkv.node;

import io.ringkv.cluster.LiveRangeCursor;
import io.ringkv.http.server.ChunkSource;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A whole range as a streamed body: one chunk per record of the cursor, in the given format, read
 * as the server pulls, so memory does not depend on the range. Threading: as {@link ChunkSource}.
 */
final class RangeChunks implements ChunkSource {
    private final LiveRangeCursor records;
    private final RangeFormat format;

    /** Takes ownership of {@code records}: {@link #close()} closes it. */
    RangeChunks(LiveRangeCursor records, RangeFormat format) {
        this.records = records;
        this.format = format;
    }

    @Override
    public ByteBuffer next() throws IOException {
        return records.advance() ? format.chunk(records.key(), records.value()) : null;
    }

    @Override
    public void close() {
        records.close();
    }
}
