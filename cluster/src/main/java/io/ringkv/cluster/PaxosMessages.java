package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * The bodies of the compare-and-set calls between nodes ({@link InternalProtocol#PAXOS_PREPARE_PATH},
 * {@link InternalProtocol#PAXOS_ACCEPT_PATH}), all big-endian:
 * <pre>
 *   prepare  = key ballot
 *   promise  = granted(u8 0|1) promised(i64) version? accepted?
 *   accept   = key ballot record
 *   accepted = granted(u8 0|1) promised(i64)
 *   key      = length(u16, 1..) bytes
 *   version  = present(u8 0|1) [timestamp(i64) tombstone(u8 0|1) expiresAt(i64)]   the replica's current record, value left out
 *   accepted?= present(u8 0|1) [ballot(i64) committed(u8 0|1) record-unless-committed]
 *   record   = timestamp(i64) tombstone(u8 0|1) expiresAt(i64) length(i32) value
 * </pre>
 * Bytes from a peer are hostile: every decoder checks every length, flag and ballot, and the body
 * must end where the message does; anything else is an {@link IllegalArgumentException} (400 on
 * the server side, a failed call on the client side).
 *
 * <p>Stateless, thread-safe.
 */
final class PaxosMessages {
    /** The longest key a message may carry (a u16 length). */
    static final int KEY_BYTES_MAX = 0xFFFF;
    private static final int RECORD_HEADER_BYTES = Long.BYTES + 1 + Long.BYTES + Integer.BYTES;
    private static final int VERSION_BYTES = Long.BYTES + 1 + Long.BYTES;

    private PaxosMessages() {
    }

    /** A prepare: promise {@code ballot} for {@code key} and tell me what you hold. */
    record Prepare(byte[] key, long ballot) {
    }

    /**
     * A replica's answer to a prepare.
     *
     * @param granted        whether it promised the ballot (it had promised none higher)
     * @param promised       its promise now: the ballot when granted, the higher one that refused it otherwise
     * @param current        its current record for the key, value left out (empty value), or empty
     * @param acceptedBallot the ballot of the proposal it accepted last, 0 when none (or when that
     *                       one is older than the tombstone grace period)
     * @param accepted       that proposal's record when it is not committed here (a proposer may
     *                       have to finish it), else null: a committed one is never finished, so
     *                       its value does not travel
     * @param committed      whether its current record is that proposal's record or newer: the
     *                       proposal was committed here (or overtaken by a newer write), so it
     *                       need not be finished
     */
    record Promise(boolean granted, long promised, Optional<Record> current, long acceptedBallot, Record accepted,
                   boolean committed) {
        Promise {
            if (acceptedBallot == 0 && (accepted != null || committed)) {
                throw new IllegalArgumentException("no accepted ballot, so neither a record nor a commit");
            }
            if (acceptedBallot != 0 && (accepted == null) != committed) {
                throw new IllegalArgumentException("an accepted proposal comes with its record exactly when it is not committed");
            }
        }
    }

    /** An accept: accept {@code record} for {@code key} at {@code ballot}. */
    record Accept(byte[] key, long ballot, Record record) {
    }

    /** A replica's answer to an accept: whether it accepted, and its promise now. */
    record Accepted(boolean granted, long promised) {
    }

    static byte[] encode(Prepare prepare) {
        return ByteBuffer.allocate(2 + prepare.key().length + Long.BYTES).put(key(prepare.key()))
                .putLong(prepare.ballot()).array();
    }

    static Prepare decodePrepare(byte[] body) {
        return read(body, "prepare", in -> new Prepare(readKey(in), readBallot(in)));
    }

    static byte[] encode(Promise promise) {
        int bytes = 1 + Long.BYTES + 1 + (promise.current().isPresent() ? VERSION_BYTES : 0) + 1
                + (promise.acceptedBallot() == 0 ? 0 : Long.BYTES + 1)
                + (promise.accepted() == null ? 0 : recordBytes(promise.accepted()));
        ByteBuffer out = ByteBuffer.allocate(bytes).put(flag(promise.granted())).putLong(promise.promised());
        out.put(flag(promise.current().isPresent()));
        promise.current().ifPresent(current -> out.putLong(current.timestamp()).put(flag(current.tombstone()))
                .putLong(current.expiresAtMillis()));
        out.put(flag(promise.acceptedBallot() != 0));
        if (promise.acceptedBallot() != 0) {
            out.putLong(promise.acceptedBallot()).put(flag(promise.committed()));
            if (!promise.committed()) {
                putRecord(out, promise.accepted());
            }
        }
        return out.array();
    }

    static Promise decodePromise(byte[] body) {
        return read(body, "promise", in -> {
            boolean granted = readFlag(in);
            long promised = readBallot(in);
            Optional<Record> current = Optional.empty();
            if (readFlag(in)) {
                long timestamp = readTimestamp(in);
                boolean tombstone = readFlag(in);
                current = Optional.of(newRecord(timestamp, tombstone, new byte[0], in.getLong()));
            }
            long acceptedBallot = 0;
            Record accepted = null;
            boolean committed = false;
            if (readFlag(in)) {
                acceptedBallot = readBallot(in);
                committed = readFlag(in);
                if (acceptedBallot > promised) {
                    throw new IllegalArgumentException("accepted ballot above the promise");
                }
                if (!committed) {
                    accepted = readRecord(in);
                    if (accepted.timestamp() > acceptedBallot) {
                        throw new IllegalArgumentException("an accepted record stamped above its ballot");
                    }
                }
            }
            return new Promise(granted, promised, current, acceptedBallot, accepted, committed);
        });
    }

    static byte[] encode(Accept accept) {
        ByteBuffer out = ByteBuffer.allocate(2 + accept.key().length + Long.BYTES + recordBytes(accept.record()))
                .put(key(accept.key())).putLong(accept.ballot());
        putRecord(out, accept.record());
        return out.array();
    }

    static Accept decodeAccept(byte[] body) {
        return read(body, "accept", in -> {
            byte[] key = readKey(in);
            long ballot = readBallot(in);
            Record record = readRecord(in);
            if (record.timestamp() > ballot) {
                // A proposal writes at its own ballot, or finishes an earlier one at that one's ballot: never later.
                throw new IllegalArgumentException("a proposal's record is stamped above its ballot");
            }
            return new Accept(key, ballot, record);
        });
    }

    static byte[] encode(Accepted accepted) {
        return ByteBuffer.allocate(1 + Long.BYTES).put(flag(accepted.granted())).putLong(accepted.promised()).array();
    }

    static Accepted decodeAccepted(byte[] body) {
        return read(body, "accept answer", in -> new Accepted(readFlag(in), readBallot(in)));
    }

    private interface Reader<T> {
        T read(ByteBuffer in);
    }

    private static <T> T read(byte[] body, String what, Reader<T> reader) {
        ByteBuffer in = ByteBuffer.wrap(body);
        T message;
        try {
            message = reader.read(in);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("malformed paxos " + what + ": truncated (" + body.length + " bytes)");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed paxos " + what + ": " + e.getMessage(), e);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("malformed paxos " + what + ": " + in.remaining() + " bytes after its end");
        }
        return message;
    }

    private static byte[] key(byte[] key) {
        if (key.length == 0 || key.length > KEY_BYTES_MAX) {
            throw new IllegalArgumentException("a key has 1.." + KEY_BYTES_MAX + " bytes, got " + key.length);
        }
        return ByteBuffer.allocate(2 + key.length).putShort((short) key.length).put(key).array();
    }

    private static byte[] readKey(ByteBuffer in) {
        int length = Short.toUnsignedInt(in.getShort());
        if (length == 0) {
            throw new IllegalArgumentException("empty key");
        }
        byte[] key = new byte[length];
        in.get(key);
        return key;
    }

    private static long readBallot(ByteBuffer in) {
        long ballot = in.getLong();
        if (ballot <= 0) {
            throw new IllegalArgumentException("ballot " + ballot + " is not positive");
        }
        return ballot;
    }

    private static long readTimestamp(ByteBuffer in) {
        long timestamp = in.getLong();
        if (timestamp <= 0) {
            throw new IllegalArgumentException("timestamp " + timestamp + " is not positive");
        }
        return timestamp;
    }

    private static boolean readFlag(ByteBuffer in) {
        byte flag = in.get();
        if (flag != 0 && flag != 1) {
            throw new IllegalArgumentException("flag byte " + flag + " is neither 0 nor 1");
        }
        return flag == 1;
    }

    private static byte flag(boolean value) {
        return (byte) (value ? 1 : 0);
    }

    private static int recordBytes(Record record) {
        return RECORD_HEADER_BYTES + record.value().length;
    }

    private static void putRecord(ByteBuffer out, Record record) {
        out.putLong(record.timestamp()).put(flag(record.tombstone())).putLong(record.expiresAtMillis())
                .putInt(record.value().length).put(record.value());
    }

    private static Record readRecord(ByteBuffer in) {
        long timestamp = readTimestamp(in);
        boolean tombstone = readFlag(in);
        long expiresAt = in.getLong();
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("value length " + length + " with " + in.remaining() + " bytes left");
        }
        byte[] value = new byte[length];
        in.get(value);
        return newRecord(timestamp, tombstone, value, expiresAt);
    }

    /** A record, its own rules (a tombstone has no value, no expiry) failing as a malformed message. */
    private static Record newRecord(long timestamp, boolean tombstone, byte[] value, long expiresAt) {
        return new Record(timestamp, tombstone, value, expiresAt);
    }
}
