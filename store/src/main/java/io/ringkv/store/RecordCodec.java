package io.ringkv.store;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The on-disk encoding of a {@link Record}, version 1:
 * <pre>
 *   offset 0   format      1 byte   = 1
 *   offset 1   timestamp   8 bytes  big-endian HLC timestamp
 *   offset 9   flags       1 byte   bit 0: tombstone; bits 1-7 reserved, must be 0
 *   offset 10  value       the rest (empty for a tombstone)
 * </pre>
 * The format byte lets a later version change the layout (e.g. add an expiry) and still read old
 * records; reserved flag bits are rejected rather than ignored, so a record written by a newer
 * version is never silently misread.
 *
 * <p>Stateless; thread-safe.
 */
final class RecordCodec {

    static final byte FORMAT_V1 = 1;
    static final int HEADER_BYTES = 1 + Long.BYTES + 1;
    static final byte FLAG_TOMBSTONE = 1;
    private static final int FLAGS_KNOWN = FLAG_TOMBSTONE;

    private RecordCodec() {
    }

    static byte[] encode(Record record) {
        byte[] value = record.value();
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + value.length);
        out.put(FORMAT_V1).putLong(record.timestamp()).put(record.tombstone() ? FLAG_TOMBSTONE : 0).put(value);
        return out.array();
    }

    /** @throws CorruptRecordException if {@code bytes} is not a record this version can read */
    static Record decode(byte[] bytes) throws CorruptRecordException {
        if (bytes.length < HEADER_BYTES) {
            throw new CorruptRecordException("record too short: " + bytes.length + " bytes, header needs " + HEADER_BYTES);
        }
        if (bytes[0] != FORMAT_V1) {
            throw new CorruptRecordException("unknown record format " + (bytes[0] & 0xFF) + " (this version reads " + FORMAT_V1 + ")");
        }
        long timestamp = ByteBuffer.wrap(bytes, 1, Long.BYTES).getLong();
        int flags = bytes[HEADER_BYTES - 1] & 0xFF;
        if ((flags & ~FLAGS_KNOWN) != 0) {
            throw new CorruptRecordException("unknown record flags 0x" + Integer.toHexString(flags));
        }
        boolean tombstone = (flags & FLAG_TOMBSTONE) != 0;
        if (tombstone && bytes.length != HEADER_BYTES) {
            throw new CorruptRecordException("tombstone carries " + (bytes.length - HEADER_BYTES) + " value bytes");
        }
        if (tombstone) {
            return Record.tombstone(timestamp);
        }
        return Record.value(timestamp, Arrays.copyOfRange(bytes, HEADER_BYTES, bytes.length));
    }
}
