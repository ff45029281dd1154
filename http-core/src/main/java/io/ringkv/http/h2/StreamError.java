package io.ringkv.http.h2;

/** An error confined to one stream (RFC 9113 §5.4.2): send RST_STREAM, keep the connection. */
public final class StreamError extends Http2Error {
    private final int streamId;

    public StreamError(int streamId, ErrorCode code, String reason) {
        super(code, reason);
        this.streamId = streamId;
    }

    public int streamId() {
        return streamId;
    }

    @Override
    public String toString() {
        return "StreamError[" + streamId + ", " + code() + ", " + reason() + "]";
    }
}
