package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bodies of {@link InternalProtocol#READS_PATH}: a batch of reads from one coordinator to one
 * replica, and the replica's answer per key. Big-endian:
 * <pre>
 *   request = (keyLength:int32 (&gt; 0) key)* END_OF_STREAM, 1 to {@link #KEYS_MAX} keys, nothing after
 *   answer  = one entry per key, in the request's order:
 *             {@link #ABSENT}                  the replica holds no record for it
 *             {@link #FOUND} record                (a {@link RecordFrames} record: timestamp, flags, expiry if any, value)
 *             {@link #DEFERRED}                not read: the answer already carries
 *                                       {@link #ANSWER_VALUE_BYTES} of values; ask for this key alone
 * </pre>
 * The deferral bounds an answer's size whatever the values' sizes (the first key is always
 * answered). Decoding treats the bytes as hostile: lengths are checked against what is left before
 * anything is allocated, and a malformed body is refused as a whole ({@link IllegalArgumentException}).
 * Threading: stateless.
 */
final class ReadBatchCodec {

    static final int KEYS_MAX = 256;
    /** A request's body grows to this many bytes at most (less when the peers' body limit is lower). */
    static final int BYTES_MAX = 64 * 1024;
    /** Bytes a request's body has besides its keys: the end marker. */
    static final int END_MARKER_BYTES = Integer.BYTES;
    /** Values one answer carries before it defers the remaining keys. */
    static final int ANSWER_VALUE_BYTES = 1024 * 1024;
    static final byte ABSENT = 0;
    static final byte FOUND = 1;
    static final byte DEFERRED = 2;
    /** Bytes a key adds to a request. */
    static int keyBytes(byte[] key) {
        return Integer.BYTES + key.length;
    }

    private ReadBatchCodec() {
    }

    static byte[] encodeRequest(List<byte[]> keys) {
        int bytes = END_MARKER_BYTES;
        for (byte[] key : keys) {
            bytes += keyBytes(key);
        }
        ByteBuffer body = ByteBuffer.allocate(bytes);
        for (byte[] key : keys) {
            body.putInt(key.length).put(key);
        }
        body.putInt(RecordFrames.END_OF_STREAM);
        return body.array();
    }

    /** @throws IllegalArgumentException when {@code body} is not a well-formed request */
    static List<byte[]> decodeRequest(byte[] body) {
        ByteBuffer in = ByteBuffer.wrap(body);
        List<byte[]> keys = new ArrayList<>();
        try {
            while (true) {
                int length = in.getInt();
                if (length == RecordFrames.END_OF_STREAM) {
                    break;
                }
                if (keys.size() == KEYS_MAX) {
                    throw new IllegalArgumentException("more than " + KEYS_MAX + " keys in one read batch");
                }
                if (length <= 0 || length > Math.min(RecordFrames.KEY_BYTES_MAX, in.remaining())) {
                    throw new IllegalArgumentException("key " + keys.size() + ": length " + length);
                }
                byte[] key = new byte[length];
                in.get(key);
                keys.add(key);
            }
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("read batch cut short after " + keys.size() + " keys (no end marker)", e);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the read batch's end marker");
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("an empty read batch");
        }
        return keys;
    }

    /** One key's answer: a record, absent ({@code record == null && !deferred}), or deferred. */
    record Answer(Record record, boolean deferred) {
        static final Answer NOT_FOUND = new Answer(null, false);
        static final Answer ASK_ALONE = new Answer(null, true);

        Optional<Record> found() {
            return Optional.ofNullable(record);
        }
    }

    static byte[] encodeAnswers(List<Answer> answers) {
        int bytes = 0;
        for (Answer answer : answers) {
            bytes += 1 + (answer.record() == null ? 0 : RecordFrames.recordBytes(answer.record()));
        }
        ByteBuffer body = ByteBuffer.allocate(bytes);
        for (Answer answer : answers) {
            if (answer.deferred()) {
                body.put(DEFERRED);
            } else if (answer.record() == null) {
                body.put(ABSENT);
            } else {
                RecordFrames.writeRecord(body.put(FOUND), answer.record());
            }
        }
        return body.array();
    }

    /** @throws IllegalArgumentException unless {@code body} holds exactly {@code keys} well-formed answers */
    static List<Answer> decodeAnswers(byte[] body, int keys) {
        ByteBuffer in = ByteBuffer.wrap(body);
        List<Answer> answers = new ArrayList<>(keys);
        try {
            for (int i = 0; i < keys; i++) {
                byte kind = in.get();
                switch (kind) {
                    case ABSENT -> answers.add(Answer.NOT_FOUND);
                    case DEFERRED -> answers.add(Answer.ASK_ALONE);
                    case FOUND -> {
                        try {
                            answers.add(new Answer(RecordFrames.readRecord(in), false));
                        } catch (IllegalArgumentException malformed) {
                            throw new IllegalArgumentException("answer " + i + ": " + malformed.getMessage(), malformed);
                        }
                    }
                    default -> throw new IllegalArgumentException("answer " + i + ": unknown kind " + kind);
                }
            }
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("answers cut short after " + answers.size() + " of " + keys, e);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after " + keys + " answers");
        }
        return answers;
    }
}
