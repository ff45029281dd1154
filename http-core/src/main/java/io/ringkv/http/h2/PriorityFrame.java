package io.ringkv.http.h2;

/** PRIORITY, RFC 9113 §6.3. */
public record PriorityFrame(int streamId, Priority priority) implements Frame {
    @Override
    public FrameType type() {
        return FrameType.PRIORITY;
    }
}
