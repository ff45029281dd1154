package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The bodies of {@link InternalProtocol#WRITES_PATH}: a batch of writes from one node to another
 * (a coordinator's, a read repair, replayed hints, pushed repairs and hand-over), and the
 * receiver's answer per write.
 * <pre>
 *   request  = {@link RecordFrames} frame* END_OF_STREAM, nothing after it; keys in any order, a key
 *              may repeat (two writes of it in the same batch), at most {@link #RECORDS_MAX} frames
 *   answer   = one big-endian int64 per frame, in the request's order:
 *              {@link #STORED} (-1)          the replica now holds the record
 *              {@link #REFUSED_AHEAD} (-2)   refused: stamped too far ahead of the replica's clock
 *              t &gt;= 0                      not stored: the replica keeps a record stamped t
 *                                         (newer than the write, or the same record)
 * </pre>
 * Each write gets its own answer: a coordinator counts each replica's acknowledgement, and a sender
 * of many records learns which one a peer refused ({@link ReplicaClient#writeOutcome}).
 *
 * <p>Decoding treats the bytes as hostile: every length is checked against what is left before
 * anything is allocated, and a malformed body is refused as a whole ({@link IllegalArgumentException}).
 * Threading: stateless.
 */
final class WriteBatchCodec {

    /** Most writes in one batch; a coordinator sends more as further batches. */
    static final int RECORDS_MAX = 256;
    /** Bytes a request's body has besides its frames: the end marker. */
    static final int END_MARKER_BYTES = Integer.BYTES;
    static final long STORED = -1;
    static final long REFUSED_AHEAD = -2;

    private WriteBatchCodec() {
    }

    /** The request body for these writes, in this order. */
    static byte[] encodeRequest(List<byte[]> keys, List<Record> records) {
        int bytes = END_MARKER_BYTES;
        for (int i = 0; i < keys.size(); i++) {
            bytes += RecordFrames.frameBytes(keys.get(i), records.get(i));
        }
        ByteBuffer body = ByteBuffer.allocate(bytes);
        for (int i = 0; i < keys.size(); i++) {
            RecordFrames.write(body, keys.get(i), records.get(i));
        }
        RecordFrames.writeEnd(body);
        return body.array();
    }

    /** A decoded request: {@code keys.get(i)} is written {@code records.get(i)}. */
    record Batch(List<byte[]> keys, List<Record> records) {
    }

    /** @throws IllegalArgumentException when {@code body} is not a well-formed batch (what is wrong in the message) */
    static Batch decodeRequest(byte[] body) {
        ByteBuffer in = ByteBuffer.wrap(body);
        List<byte[]> keys = new ArrayList<>();
        List<Record> records = new ArrayList<>();
        try {
            while (true) {
                int keyLength = in.getInt();
                if (keyLength == RecordFrames.END_OF_STREAM) {
                    break;
                }
                if (keys.size() == RECORDS_MAX) {
                    throw new IllegalArgumentException("more than " + RECORDS_MAX + " writes in one batch");
                }
                if (keyLength <= 0 || keyLength > Math.min(RecordFrames.KEY_BYTES_MAX, in.remaining())) {
                    throw new IllegalArgumentException("write " + keys.size() + ": key length " + keyLength);
                }
                byte[] key = new byte[keyLength];
                in.get(key);
                Record record;
                try {
                    record = RecordFrames.readRecord(in);
                } catch (IllegalArgumentException malformed) {
                    throw new IllegalArgumentException("write " + keys.size() + ": " + malformed.getMessage(), malformed);
                }
                keys.add(key);
                records.add(record);
            }
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("write batch cut short after " + keys.size() + " writes (no end marker)", e);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the write batch's end marker");
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("an empty write batch");
        }
        return new Batch(keys, records);
    }

    static byte[] encodeAnswers(long[] answers) {
        ByteBuffer body = ByteBuffer.allocate(answers.length * Long.BYTES);
        for (long answer : answers) {
            body.putLong(answer);
        }
        return body.array();
    }

    /** @throws IllegalArgumentException unless {@code body} holds exactly {@code writes} well-formed answers */
    static long[] decodeAnswers(byte[] body, int writes) {
        if (body.length != writes * Long.BYTES) {
            throw new IllegalArgumentException(body.length + " bytes of answers for " + writes + " writes");
        }
        ByteBuffer in = ByteBuffer.wrap(body);
        long[] answers = new long[writes];
        for (int i = 0; i < writes; i++) {
            answers[i] = in.getLong();
            if (answers[i] < REFUSED_AHEAD) {
                throw new IllegalArgumentException("answer " + i + " is " + answers[i]);
            }
        }
        return answers;
    }
}
