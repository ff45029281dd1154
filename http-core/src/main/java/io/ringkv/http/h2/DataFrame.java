package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/**
 * DATA, RFC 9113 §6.1.
 *
 * @param padLength number of padding octets, or {@link Frame#UNPADDED} when PADDED is not set
 */
public record DataFrame(int streamId, ByteBuffer data, boolean endStream, int padLength) implements Frame {
    public DataFrame(int streamId, ByteBuffer data, boolean endStream) {
        this(streamId, data, endStream, UNPADDED);
    }

    @Override
    public FrameType type() {
        return FrameType.DATA;
    }

    /** RFC 9113 §6.9.1: the whole payload, padding and pad length octet included, is counted. */
    public int flowControlledLength() {
        return data.remaining() + (padLength == UNPADDED ? 0 : 1 + padLength);
    }
}
