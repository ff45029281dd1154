package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a PUSH_PROMISE payload, RFC 9113 §6.6. Whether push is allowed is the connection's call. */
final class PushPromiseFrameParser {
    private PushPromiseFrameParser() {
    }

    static PushPromiseFrame parse(FrameHeader header, ByteBuffer payload) throws ConnectionError {
        if (header.streamId() == 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "push_promise_on_stream_zero");
        }
        int padLength = Padding.strip(header, payload, 4);
        int promised = payload.getInt() & 0x7fffffff;
        return new PushPromiseFrame(header.streamId(), promised, payload.slice(), header.has(Flags.END_HEADERS),
                padLength);
    }
}
