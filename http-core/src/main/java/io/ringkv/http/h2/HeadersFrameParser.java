package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/**
 * Parses a HEADERS payload, RFC 9113 §6.2. A self-dependency is not rejected here: the field
 * block must still be decoded to keep HPACK state in step, so the connection checks it after.
 */
final class HeadersFrameParser {
    private HeadersFrameParser() {
    }

    static HeadersFrame parse(FrameHeader header, ByteBuffer payload) throws ConnectionError {
        if (header.streamId() == 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "headers_on_stream_zero");
        }
        boolean hasPriority = header.has(Flags.PRIORITY);
        int padLength = Padding.strip(header, payload, hasPriority ? 5 : 0);
        Priority priority = hasPriority ? PriorityFrameParser.readPriority(payload) : null;
        return new HeadersFrame(header.streamId(), payload.slice(), header.has(Flags.END_STREAM),
                header.has(Flags.END_HEADERS), priority, padLength);
    }
}
