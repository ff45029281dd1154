package io.ringkv.node;

import java.nio.ByteBuffer;

/**
 * How a record of {@code GET /v0/entities} is written: one chunk per record, in either form.
 * A key-only chunk is what a full one would be for an empty value, so a reader of the full form
 * reads it unchanged, and a body of key-only chunks is a newline-terminated list of keys.
 */
enum RangeFormat {
    /** {@code key '\n' value}, the format of the course API. */
    KEYS_AND_VALUES,
    /** {@code key '\n'} ({@code keysOnly=true}). */
    KEYS_ONLY;

    private static final byte SEPARATOR = '\n';

    ByteBuffer chunk(byte[] key, byte[] value) {
        int valueBytes = this == KEYS_ONLY ? 0 : value.length;
        ByteBuffer chunk = ByteBuffer.allocate(key.length + 1 + valueBytes).put(key).put(SEPARATOR);
        if (valueBytes > 0) {
            chunk.put(value);
        }
        return chunk.flip();
    }
}
