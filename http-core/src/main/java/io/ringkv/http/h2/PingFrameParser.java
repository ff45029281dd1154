package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a PING payload, RFC 9113 §6.7. */
final class PingFrameParser {
    private PingFrameParser() {
    }

    static PingFrame parse(FrameHeader header, ByteBuffer payload) throws ConnectionError {
        if (header.streamId() != 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "ping_on_stream");
        }
        if (header.length() != 8) {
            throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "ping_bad_length");
        }
        return new PingFrame(payload.getLong(), header.has(Flags.ACK));
    }
}
