package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** CONTINUATION, RFC 9113 §6.10. */
public record ContinuationFrame(int streamId, ByteBuffer fragment, boolean endHeaders) implements Frame {
    @Override
    public FrameType type() {
        return FrameType.CONTINUATION;
    }
}
