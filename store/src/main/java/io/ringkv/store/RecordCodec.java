package io.ringkv.store;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The on-disk encoding of a {@link Record}. Two formats, told apart by the first byte:
 * <pre>
 *   format 1, a record that never expires (the only format before expiry existed):
 *   offset 0   format      1 byte   = 1
 *   offset 1   timestamp   8 bytes  big-endian HLC timestamp
 *   offset 9   flags       1 byte   bit 0: tombstone; bits 1-7 reserved, must be 0
 *   offset 10  value       the rest (empty for a tombstone)
 *
 *   format 2, a value with an expiry:
 *   offset 0   format      1 byte   = 2
 *   offset 1   timestamp   8 bytes  big-endian HLC timestamp
 *   offset 9   flags       1 byte   must be 0 (a tombstone never expires)
 *   offset 10  expiry      8 bytes  big-endian epoch millis, positive
 *   offset 18  value       the rest
 * </pre>
 * A record without an expiry is still written in format 1, byte for byte as before, so a store
 * that never used a time to live holds exactly what an older version wrote and can still be read
 * by it. An older version refuses a format 2 record as an unknown format rather than misreading
 * it, as it refuses reserved flag bits.
 *
 * <p>Stateless; thread-safe.
 */
final class RecordCodec {

    static final byte FORMAT_V1 = 1;
    static final byte FORMAT_EXPIRING = 2;
    static final int HEADER_BYTES = 1 + Long.BYTES + 1;
    static final int EXPIRING_HEADER_BYTES = HEADER_BYTES + Long.BYTES;
    static final byte FLAG_TOMBSTONE = 1;
    private static final int FLAGS_KNOWN = FLAG_TOMBSTONE;

    private RecordCodec() {
    }

    static byte[] encode(Record record) {
        byte[] value = record.value();
        byte flags = record.tombstone() ? FLAG_TOMBSTONE : 0;
        if (!record.expires()) {
            return ByteBuffer.allocate(HEADER_BYTES + value.length)
                    .put(FORMAT_V1).putLong(record.timestamp()).put(flags).put(value).array();
        }
        return ByteBuffer.allocate(EXPIRING_HEADER_BYTES + value.length)
                .put(FORMAT_EXPIRING).putLong(record.timestamp()).put(flags).putLong(record.expiresAtMillis()).put(value).array();
    }

    /**
     * The header length of a record whose first byte is {@code format}: what sits before its value.
     * An unknown format counts as format 1 (callers only estimate sizes with it).
     */
    static int headerBytes(byte format) {
        return format == FORMAT_EXPIRING ? EXPIRING_HEADER_BYTES : HEADER_BYTES;
    }

    /** @throws CorruptRecordException if {@code bytes} is not a record this version can read */
    static Record decode(byte[] bytes) throws CorruptRecordException {
        if (bytes.length == 0) {
            throw new CorruptRecordException("record too short: 0 bytes, header needs " + HEADER_BYTES);
        }
        byte format = bytes[0];
        if (format != FORMAT_V1 && format != FORMAT_EXPIRING) {
            throw new CorruptRecordException("unknown record format " + (format & 0xFF) + " (this version reads "
                    + FORMAT_V1 + " and " + FORMAT_EXPIRING + ")");
        }
        int header = headerBytes(format);
        if (bytes.length < header) {
            throw new CorruptRecordException("record too short: " + bytes.length + " bytes, header needs " + header);
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 1, header - 1);
        long timestamp = in.getLong();
        int flags = in.get() & 0xFF;
        if ((flags & ~FLAGS_KNOWN) != 0) {
            throw new CorruptRecordException("unknown record flags 0x" + Integer.toHexString(flags));
        }
        boolean tombstone = (flags & FLAG_TOMBSTONE) != 0;
        if (tombstone && bytes.length != header) {
            throw new CorruptRecordException("tombstone carries " + (bytes.length - header) + " value bytes");
        }
        if (format == FORMAT_V1) {
            return tombstone ? Record.tombstone(timestamp) : Record.value(timestamp, Arrays.copyOfRange(bytes, header, bytes.length));
        }
        if (tombstone) {
            throw new CorruptRecordException("a tombstone in the expiring format (a tombstone never expires)");
        }
        long expiresAt = in.getLong();
        if (expiresAt <= 0) {
            throw new CorruptRecordException("record expiry " + expiresAt + " is not positive epoch millis");
        }
        return Record.expiring(timestamp, Arrays.copyOfRange(bytes, header, bytes.length), expiresAt);
    }
}
