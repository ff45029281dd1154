package io.ringkv.cluster;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/**
 * The payload of a signed streamed answer ({@link AnswerAuth}, "Streamed answers"), read segment
 * by segment: a segment's bytes are handed out only after its MAC matched, and the body must end
 * with the final empty segment. A segment that fails is a {@link ReplicaException} (an
 * {@link IOException}), told to {@link RejectedAnswers}; nothing of it is handed out.
 *
 * <p>Memory: one segment (a server chunk, about 32 KiB, or one record larger than that), read as
 * its bytes arrive rather than allocated at the length it announces. Threading: one reader
 * thread at a time, as the stream it wraps.
 */
final class VerifiedSegmentStream extends InputStream {

    private final AnswerAuth auth;
    private final ClusterNode node;
    private final String requestProof;
    private final DataInputStream in;
    private final int segmentBytesMax;
    private final RejectedAnswers rejections;
    private ByteBuffer current = ByteBuffer.allocate(0);
    private long index;
    private boolean ended;

    VerifiedSegmentStream(AnswerAuth auth, ClusterNode node, String requestProof, InputStream in, int segmentBytesMax,
                          RejectedAnswers rejections) {
        this.auth = auth;
        this.node = node;
        this.requestProof = requestProof;
        this.in = new DataInputStream(in);
        this.segmentBytesMax = segmentBytesMax;
        this.rejections = rejections;
    }

    @Override
    public int read() throws IOException {
        return fill() ? current.get() & 0xFF : -1;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int count = Math.min(length, current.remaining());
        current.get(into, offset, count);
        return count;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** Makes bytes available; false at the verified end. */
    private boolean fill() throws IOException {
        while (!current.hasRemaining()) {
            if (ended) {
                return false;
            }
            current = nextSegment();
        }
        return true;
    }

    private ByteBuffer nextSegment() throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            throw new ReplicaException(node, "streamed answer ended before its final segment", e);
        }
        if (length < 0 || length > segmentBytesMax) {
            // Refused unread, so its MAC is never checked: only a forger or a broken peer sends one.
            throw rejections.reject(node, "segment " + index + " of a streamed answer (announcing " + length + " bytes)");
        }
        byte[] payload = in.readNBytes(length);
        byte[] given = in.readNBytes(ProofKey.MAC_BYTES);
        if (payload.length != length || given.length != ProofKey.MAC_BYTES) {
            throw new ReplicaException(node, "streamed answer cut short in segment " + index);
        }
        ByteBuffer segment = ByteBuffer.wrap(payload);
        if (!MessageDigest.isEqual(auth.segmentMac(requestProof, index, segment), given)) {
            throw rejections.reject(node, "segment " + index + " of a streamed answer");
        }
        index++;
        ended = length == 0;
        return segment;
    }
}
