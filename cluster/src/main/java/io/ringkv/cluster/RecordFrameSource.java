package io.ringkv.cluster;

import io.ringkv.http.server.ChunkSource;
import io.ringkv.store.Record;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The body of the internal range endpoint: this node's records (tombstones included) as
 * {@link RecordFrames}, batched into chunks of about {@link #CHUNK_BYTES_TARGET} so that small
 * records do not each cost a chunk header and a write. A record larger than the target gets a
 * chunk of its own size. Memory: one chunk and one pending entry. Threading: as {@link ChunkSource}.
 */
public final class RecordFrameSource implements ChunkSource {

    static final int CHUNK_BYTES_TARGET = 32 * 1024;
    /** Every chunk keeps room for the end marker, so the last entry never needs a chunk of its own. */
    private static final int END_BYTES = Integer.BYTES;
    /** The largest chunk: one frame of the largest key and value a reader accepts, and the end marker. */
    static final int CHUNK_BYTES_MAX = RecordFrames.FRAME_OVERHEAD_BYTES + RecordFrames.KEY_BYTES_MAX
            + RecordFrames.VALUE_BYTES_MAX + END_BYTES;

    private final RecordStream records;
    private boolean endWritten;
    private byte[] pendingKey;
    private Record pendingRecord;

    public RecordFrameSource(RecordStream records) {
        this.records = records;
    }

    @Override
    public ByteBuffer next() throws IOException {
        if (endWritten) {
            return null;
        }
        ByteBuffer chunk = null;
        while (pendingKey != null || advance()) {
            int frameBytes = RecordFrames.frameBytes(pendingKey, pendingRecord);
            if (chunk == null) {
                chunk = ByteBuffer.allocate(Math.max(CHUNK_BYTES_TARGET, frameBytes) + END_BYTES);
            } else if (chunk.remaining() - END_BYTES < frameBytes) {
                return chunk.flip(); // the pending entry opens the next chunk
            }
            RecordFrames.write(chunk, pendingKey, pendingRecord);
            pendingKey = null;
            pendingRecord = null;
        }
        if (chunk == null) {
            chunk = ByteBuffer.allocate(END_BYTES);
        }
        RecordFrames.writeEnd(chunk);
        endWritten = true;
        return chunk.flip();
    }

    @Override
    public void close() {
        records.close();
    }

    private boolean advance() throws IOException {
        if (!records.next()) {
            return false;
        }
        pendingKey = records.key();
        pendingRecord = records.record();
        return true;
    }
}
