package io.ringkv.http.h2;

/** RST_STREAM, RFC 9113 §6.4. {@code errorCode} is the raw wire value (may be unknown). */
public record RstStreamFrame(int streamId, int errorCode) implements Frame {
    public RstStreamFrame(int streamId, ErrorCode error) {
        this(streamId, error.code);
    }

    @Override
    public FrameType type() {
        return FrameType.RST_STREAM;
    }

    public ErrorCode error() {
        return ErrorCode.of(errorCode);
    }
}
