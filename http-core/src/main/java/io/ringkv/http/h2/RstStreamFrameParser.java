package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a RST_STREAM payload, RFC 9113 §6.4. */
final class RstStreamFrameParser {
    private RstStreamFrameParser() {
    }

    static RstStreamFrame parse(FrameHeader header, ByteBuffer payload) throws ConnectionError {
        if (header.streamId() == 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "rst_stream_on_stream_zero");
        }
        if (header.length() != 4) {
            throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "rst_stream_bad_length");
        }
        return new RstStreamFrame(header.streamId(), payload.getInt());
    }
}
