package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** GOAWAY, RFC 9113 §6.8. {@code errorCode} is the raw wire value. */
public record GoAwayFrame(int lastStreamId, int errorCode, ByteBuffer debugData) implements Frame {
    public GoAwayFrame(int lastStreamId, ErrorCode error, String debug) {
        this(lastStreamId, error.code, ByteBuffer.wrap(debug.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public FrameType type() {
        return FrameType.GOAWAY;
    }

    @Override
    public int streamId() {
        return 0;
    }

    public ErrorCode error() {
        return ErrorCode.of(errorCode);
    }
}
