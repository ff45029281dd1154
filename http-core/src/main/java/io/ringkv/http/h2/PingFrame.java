package io.ringkv.http.h2;

/** PING, RFC 9113 §6.7. The eight opaque octets are carried as one big-endian long. */
public record PingFrame(long opaqueData, boolean ack) implements Frame {
    @Override
    public FrameType type() {
        return FrameType.PING;
    }

    @Override
    public int streamId() {
        return 0;
    }
}
