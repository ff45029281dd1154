package io.ringkv.http.h2;

/** WINDOW_UPDATE, RFC 9113 §6.9. Stream 0 credits the connection window. */
public record WindowUpdateFrame(int streamId, int increment) implements Frame {
    @Override
    public FrameType type() {
        return FrameType.WINDOW_UPDATE;
    }
}
