package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.nio.ByteBuffer;

/**
 * The framing of records on the internal range stream. Big-endian, length-prefixed, so any key
 * and value bytes are unambiguous:
 * <pre>
 *   frame  = keyLength:int32 (&gt;= 0) key timestamp:int64 flags:int8 valueLength:int32 value
 *   flags  = bit 0 set for a tombstone (whose valueLength is 0); other bits zero
 *   stream = frame* END_OF_STREAM        END_OF_STREAM = int32 -1 in the keyLength position
 * </pre>
 * The explicit end marker lets a reader tell a complete stream from one cut short by a peer
 * that died mid-response (a bare EOF is an error, never "the range ended").
 */
public final class RecordFrames {

    /** The int32 that ends a stream where the next key length would be. */
    public static final int END_OF_STREAM = -1;
    public static final int FLAG_TOMBSTONE = 1;
    /** Sanity bounds: a frame announcing more is corrupt, not a reason to allocate it. */
    public static final int KEY_BYTES_MAX = 1 << 20;
    public static final int VALUE_BYTES_MAX = 1 << 28;
    /** Bytes of a frame besides key and value. */
    static final int FRAME_OVERHEAD_BYTES = Integer.BYTES + Long.BYTES + 1 + Integer.BYTES;

    private RecordFrames() {
    }

    public static int frameBytes(byte[] key, Record record) {
        return FRAME_OVERHEAD_BYTES + key.length + record.value().length;
    }

    /** Appends one frame; {@code out} must have {@link #frameBytes} remaining. */
    public static void write(ByteBuffer out, byte[] key, Record record) {
        out.putInt(key.length).put(key)
                .putLong(record.timestamp())
                .put((byte) (record.tombstone() ? FLAG_TOMBSTONE : 0))
                .putInt(record.value().length).put(record.value());
    }

    public static void writeEnd(ByteBuffer out) {
        out.putInt(END_OF_STREAM);
    }
}
