package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a DATA payload, RFC 9113 §6.1. */
final class DataFrameParser {
    private DataFrameParser() {
    }

    static DataFrame parse(FrameHeader header, ByteBuffer payload) throws ConnectionError {
        if (header.streamId() == 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "data_on_stream_zero");
        }
        int padLength = Padding.strip(header, payload, 0);
        return new DataFrame(header.streamId(), payload.slice(), header.has(Flags.END_STREAM), padLength);
    }
}
