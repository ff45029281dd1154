package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** PUSH_PROMISE, RFC 9113 §6.6. {@code padLength} is {@link Frame#UNPADDED} when not padded. */
public record PushPromiseFrame(int streamId, int promisedStreamId, ByteBuffer fragment, boolean endHeaders,
                               int padLength) implements Frame {
    @Override
    public FrameType type() {
        return FrameType.PUSH_PROMISE;
    }
}
