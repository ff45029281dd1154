package io.ringkv.node;

import java.nio.ByteBuffer;

/** The public range format: one chunk per record, the key bytes, a newline, the value bytes. */
public final class RangeChunk {
    private RangeChunk() {
    }

    public static ByteBuffer encode(byte[] key, byte[] value) {
        ByteBuffer chunk = ByteBuffer.allocate(key.length + 1 + value.length);
        chunk.put(key).put((byte) '\n').put(value);
        return chunk.flip();
    }
}
