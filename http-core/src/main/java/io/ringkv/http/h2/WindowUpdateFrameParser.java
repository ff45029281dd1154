package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a WINDOW_UPDATE payload, RFC 9113 §6.9. */
final class WindowUpdateFrameParser {
    private WindowUpdateFrameParser() {
    }

    static WindowUpdateFrame parse(FrameHeader header, ByteBuffer payload) throws Http2Error {
        if (header.length() != 4) {
            throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "window_update_bad_length");
        }
        int increment = payload.getInt() & 0x7fffffff;
        // RFC 9113 §6.9: a zero increment is a stream error, or a connection error on stream 0.
        if (increment == 0) {
            if (header.streamId() == 0) {
                throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "window_update_zero_increment");
            }
            throw new StreamError(header.streamId(), ErrorCode.PROTOCOL_ERROR, "window_update_zero_increment");
        }
        return new WindowUpdateFrame(header.streamId(), increment);
    }
}
