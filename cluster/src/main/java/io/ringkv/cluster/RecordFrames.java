package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.nio.ByteBuffer;

/**
 * The framing of records on the internal plane (range and versions streams, record batches, write
 * batches; read answers use its record part). Big-endian, length-prefixed, so any key and value
 * bytes are unambiguous:
 * <pre>
 *   frame  = keyLength:int32 (&gt;= 0) key record
 *   record = timestamp:int64 flags:int8 [expiresAt:int64] valueLength:int32 value
 *   flags  = bit 0 ({@link #FLAG_TOMBSTONE}): a tombstone, whose valueLength is 0
 *            bit 1 ({@link #FLAG_EXPIRES}): expiresAt follows (epoch millis, positive); never on a tombstone
 *            other bits zero
 *   stream = frame* END_OF_STREAM        END_OF_STREAM = int32 -1 in the keyLength position
 * </pre>
 * A record without an expiry is framed exactly as before expiry existed. A node that does not know
 * bit 1 refuses such a frame as corrupt instead of misreading it.
 *
 * <p>The explicit end marker lets a reader tell a complete stream from one cut short by a peer
 * that died mid-response (a bare EOF is an error, never "the range ended").
 */
public final class RecordFrames {

    /** The int32 that ends a stream where the next key length would be. */
    public static final int END_OF_STREAM = -1;
    public static final int FLAG_TOMBSTONE = 1;
    /** The record expires: its expiry, int64 epoch millis, follows the flags. */
    public static final int FLAG_EXPIRES = 2;
    static final int FLAGS_KNOWN = FLAG_TOMBSTONE | FLAG_EXPIRES;
    /** Sanity bounds: a frame announcing more is corrupt, not a reason to allocate it. */
    public static final int KEY_BYTES_MAX = 1 << 20;
    public static final int VALUE_BYTES_MAX = 1 << 28;
    /** The most bytes a frame has besides its key and value (an expiring record's frame). */
    static final int FRAME_OVERHEAD_BYTES = Integer.BYTES + Long.BYTES + 1 + Long.BYTES + Integer.BYTES;

    private RecordFrames() {
    }

    public static int frameBytes(byte[] key, Record record) {
        return Integer.BYTES + key.length + recordBytes(record);
    }

    /** Bytes of the record part of a frame. */
    static int recordBytes(Record record) {
        return Long.BYTES + 1 + (record.expires() ? Long.BYTES : 0) + Integer.BYTES + record.value().length;
    }

    /** Appends one frame; {@code out} must have {@link #frameBytes} remaining. */
    public static void write(ByteBuffer out, byte[] key, Record record) {
        writeRecord(out.putInt(key.length).put(key), record);
    }

    /** Appends the record part of a frame; {@code out} must have {@link #recordBytes} remaining. */
    static void writeRecord(ByteBuffer out, Record record) {
        out.putLong(record.timestamp()).put((byte) flags(record));
        if (record.expires()) {
            out.putLong(record.expiresAtMillis());
        }
        out.putInt(record.value().length).put(record.value());
    }

    public static void writeEnd(ByteBuffer out) {
        out.putInt(END_OF_STREAM);
    }

    static int flags(Record record) {
        return (record.tombstone() ? FLAG_TOMBSTONE : 0) | (record.expires() ? FLAG_EXPIRES : 0);
    }

    /**
     * What is wrong with a record's timestamp and flags, read before the rest of it, or null when
     * nothing is: a negative timestamp, an unknown flag, a tombstone that expires.
     */
    static String headProblem(long timestamp, int flags) {
        if (timestamp < 0 || (flags & ~FLAGS_KNOWN) != 0) {
            return "timestamp " + timestamp + ", flags " + flags;
        }
        if ((flags & FLAG_TOMBSTONE) != 0 && (flags & FLAG_EXPIRES) != 0) {
            return "a tombstone with an expiry";
        }
        return null;
    }

    /** What is wrong with a flagged record's expiry, or null when nothing is. */
    static String expiryProblem(long expiresAtMillis) {
        return expiresAtMillis > 0 ? null : "expiry " + expiresAtMillis + " is not positive epoch millis";
    }

    /**
     * Reads the record part of a frame from a body held whole (write batches, read answers), checking
     * each length against what is left before anything is allocated.
     *
     * @throws IllegalArgumentException saying what is wrong (the caller adds where)
     * @throws java.nio.BufferUnderflowException when the body ends inside the record
     */
    static Record readRecord(ByteBuffer in) {
        long timestamp = in.getLong();
        int flags = in.get() & 0xff;
        String problem = headProblem(timestamp, flags);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        long expiresAt = Record.NEVER;
        if ((flags & FLAG_EXPIRES) != 0) {
            expiresAt = in.getLong();
            problem = expiryProblem(expiresAt);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
        }
        int valueLength = in.getInt();
        boolean tombstone = (flags & FLAG_TOMBSTONE) != 0;
        if (valueLength < 0 || valueLength > in.remaining() || (tombstone && valueLength != 0)) {
            throw new IllegalArgumentException("value length " + valueLength + (tombstone ? " of a tombstone" : "")
                    + " with " + in.remaining() + " bytes left");
        }
        byte[] value = new byte[valueLength];
        in.get(value);
        return new Record(timestamp, tombstone, value, expiresAt);
    }
}
