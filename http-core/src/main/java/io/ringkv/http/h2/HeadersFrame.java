package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/**
 * HEADERS, RFC 9113 §6.2. {@code fragment} is the (first part of the) encoded field block.
 *
 * @param priority null when the PRIORITY flag is not set
 * @param padLength number of padding octets, or {@link Frame#UNPADDED}
 */
public record HeadersFrame(int streamId, ByteBuffer fragment, boolean endStream, boolean endHeaders,
                           Priority priority, int padLength) implements Frame {
    public HeadersFrame(int streamId, ByteBuffer fragment, boolean endStream, boolean endHeaders) {
        this(streamId, fragment, endStream, endHeaders, null, UNPADDED);
    }

    @Override
    public FrameType type() {
        return FrameType.HEADERS;
    }
}
