package io.ringkv.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The on-disk layout of a {@link Hint} in the hints column family, chosen so that a prefix scan
 * yields one target's hints oldest first:
 * <pre>
 *   key   = targetLength:uint16  target (UTF-8)  sequence:int64 big-endian
 *   value = createdMillis:int64  keyLength:int32  key  record (RecordCodec)
 * </pre>
 * Stateless; thread-safe.
 */
final class HintCodec {
    private static final int TARGET_BYTES_MAX = 0xFFFF;

    private HintCodec() {
    }

    static byte[] targetPrefix(String target) {
        byte[] name = target.getBytes(StandardCharsets.UTF_8);
        if (name.length > TARGET_BYTES_MAX) {
            throw new IllegalArgumentException("hint target name too long: " + name.length + " bytes");
        }
        return ByteBuffer.allocate(2 + name.length).putShort((short) name.length).put(name).array();
    }

    static byte[] key(String target, long sequence) {
        byte[] prefix = targetPrefix(target);
        return ByteBuffer.allocate(prefix.length + Long.BYTES).put(prefix).putLong(sequence).array();
    }

    static byte[] value(Hint hint) {
        byte[] record = RecordCodec.encode(hint.record());
        return ByteBuffer.allocate(Long.BYTES + Integer.BYTES + hint.key().length + record.length)
                .putLong(hint.createdMillis()).putInt(hint.key().length).put(hint.key()).put(record).array();
    }

    /** Bytes of a stored value before the hint's key (see the layout above). */
    private static final int KEY_OFFSET = Long.BYTES + Integer.BYTES;

    /**
     * The {@link Hint#sizeBytes} of the hint a stored value holds, estimated from its length and
     * its record's format byte: exact for any value this version wrote, so it serves for a value
     * that no longer decodes.
     */
    static long sizeOfStored(byte[] storedValue) {
        int recordHeader = RecordCodec.HEADER_BYTES;
        if (storedValue.length > KEY_OFFSET) {
            int keyLength = ByteBuffer.wrap(storedValue, Long.BYTES, Integer.BYTES).getInt();
            if (keyLength >= 0 && keyLength < storedValue.length - KEY_OFFSET) {
                recordHeader = RecordCodec.headerBytes(storedValue[KEY_OFFSET + keyLength]);
            }
        }
        return Math.max(0, storedValue.length - KEY_OFFSET - recordHeader);
    }

    /** @throws CorruptRecordException if the stored bytes are not a hint this version wrote */
    static Hint decode(byte[] storedKey, byte[] storedValue) throws CorruptRecordException {
        try {
            ByteBuffer key = ByteBuffer.wrap(storedKey);
            int targetLength = Short.toUnsignedInt(key.getShort());
            byte[] target = new byte[targetLength];
            key.get(target);
            long sequence = key.getLong();
            if (key.hasRemaining()) {
                throw new CorruptRecordException("hint key has " + key.remaining() + " trailing bytes");
            }
            ByteBuffer value = ByteBuffer.wrap(storedValue);
            long created = value.getLong();
            int keyLength = value.getInt();
            if (keyLength < 0 || keyLength > value.remaining()) {
                throw new CorruptRecordException("hint key length " + keyLength + " out of bounds");
            }
            byte[] recordKey = new byte[keyLength];
            value.get(recordKey);
            byte[] record = new byte[value.remaining()];
            value.get(record);
            return new Hint(new String(target, StandardCharsets.UTF_8), sequence, created, recordKey, RecordCodec.decode(record));
        } catch (java.nio.BufferUnderflowException e) {
            throw new CorruptRecordException("hint truncated: " + e);
        }
    }
}
