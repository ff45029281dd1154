package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a CONTINUATION payload, RFC 9113 §6.10. Sequencing is checked by {@link FrameParser}. */
final class ContinuationFrameParser {
    private ContinuationFrameParser() {
    }

    static ContinuationFrame parse(FrameHeader header, ByteBuffer payload) {
        return new ContinuationFrame(header.streamId(), payload.slice(), header.has(Flags.END_HEADERS));
    }
}
