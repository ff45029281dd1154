package io.ringkv.node;

import io.ringkv.cluster.RecordFrames;
import io.ringkv.store.Record;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Bodies of {@code PUT /internal/v0/writes} for tests that speak the node-to-node protocol by hand:
 * a batch of one write, and the node's answer to it (docs/cluster.md, the internal endpoints).
 */
final class OneWriteBody {

    /** The answer to a write the node now holds. */
    static final long STORED = -1;
    /** The answer to a write stamped further ahead of the node's clock than the bound. */
    static final long REFUSED_AHEAD = -2;

    private OneWriteBody() {
    }

    /** {@code key} gets {@code value}, stamped {@code timestamp}. */
    static byte[] of(String key, long timestamp, String value) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        Record record = Record.value(timestamp, value.getBytes(StandardCharsets.UTF_8));
        ByteBuffer body = ByteBuffer.allocate(Integer.BYTES + RecordFrames.frameBytes(keyBytes, record));
        RecordFrames.write(body, keyBytes, record);
        RecordFrames.writeEnd(body);
        return body.array();
    }

    /** The node's answer to the one write: {@link #STORED}, {@link #REFUSED_AHEAD} or the kept record's timestamp. */
    static long answer(byte[] answerBody) {
        if (answerBody.length != Long.BYTES) {
            throw new AssertionError("an answer to one write is 8 bytes, got " + answerBody.length);
        }
        return ByteBuffer.wrap(answerBody).getLong();
    }
}
