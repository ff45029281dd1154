package io.ringkv.cluster;

import io.ringkv.http.server.ChunkSource;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A streamed internal answer as signed segments ({@link AnswerAuth}, "Streamed answers"): each
 * chunk of the wrapped source becomes one segment with its MAC, and the end of the source a final
 * empty segment. Memory: one chunk and its copy with the length and MAC around it.
 * Threading: as {@link ChunkSource}.
 */
final class SignedSegmentSource implements ChunkSource {

    private final AnswerAuth auth;
    private final String requestProof;
    private final ChunkSource chunks;
    private long index;
    private boolean ended;

    SignedSegmentSource(AnswerAuth auth, String requestProof, ChunkSource chunks) {
        this.auth = auth;
        this.requestProof = requestProof;
        this.chunks = chunks;
    }

    @Override
    public ByteBuffer next() throws IOException {
        if (ended) {
            return null;
        }
        ByteBuffer payload;
        do {
            payload = chunks.next();
        } while (payload != null && !payload.hasRemaining()); // an empty segment would read as the end
        if (payload == null) {
            ended = true;
            payload = ByteBuffer.allocate(0);
        }
        byte[] mac = auth.segmentMac(requestProof, index++, payload);
        ByteBuffer segment = ByteBuffer.allocate(Integer.BYTES + payload.remaining() + mac.length);
        return segment.putInt(payload.remaining()).put(payload).put(mac).flip();
    }

    @Override
    public void close() {
        chunks.close();
    }
}
