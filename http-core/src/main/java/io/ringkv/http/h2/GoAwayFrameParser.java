package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a GOAWAY payload, RFC 9113 §6.8. */
final class GoAwayFrameParser {
    private GoAwayFrameParser() {
    }

    static GoAwayFrame parse(FrameHeader header, ByteBuffer payload) throws ConnectionError {
        if (header.streamId() != 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "goaway_on_stream");
        }
        if (header.length() < 8) {
            throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "goaway_too_short");
        }
        int lastStreamId = payload.getInt() & 0x7fffffff;
        int errorCode = payload.getInt();
        return new GoAwayFrame(lastStreamId, errorCode, payload.slice());
    }
}
