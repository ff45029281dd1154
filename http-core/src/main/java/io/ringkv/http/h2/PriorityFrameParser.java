package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/** Parses a PRIORITY payload, RFC 9113 §6.3. */
final class PriorityFrameParser {
    private PriorityFrameParser() {
    }

    static PriorityFrame parse(FrameHeader header, ByteBuffer payload) throws Http2Error {
        if (header.streamId() == 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "priority_on_stream_zero");
        }
        // RFC 9113 §6.3: a length other than 5 is a stream error of type FRAME_SIZE_ERROR.
        if (header.length() != 5) {
            throw new StreamError(header.streamId(), ErrorCode.FRAME_SIZE_ERROR, "priority_bad_length");
        }
        Priority priority = readPriority(payload);
        // RFC 9113 §5.3.1: a stream cannot depend on itself.
        if (priority.streamDependency() == header.streamId()) {
            throw new StreamError(header.streamId(), ErrorCode.PROTOCOL_ERROR, "priority_self_dependency");
        }
        return new PriorityFrame(header.streamId(), priority);
    }

    static Priority readPriority(ByteBuffer payload) {
        int word = payload.getInt();
        int weight = (payload.get() & 0xff) + 1;
        return new Priority(word & 0x7fffffff, word < 0, weight);
    }
}
