package io.ringkv.http.h2;

/**
 * One HTTP/2 frame (RFC 9113 §4.1), as parsed or to be generated.
 *
 * <p>Frames that carry bytes ({@link DataFrame}, header block fragments, GOAWAY debug data)
 * hold a {@link java.nio.ByteBuffer}. A parsed frame's buffer may be a slice of the buffer
 * given to the parser: the caller must not overwrite that region while the frame is in use
 * (swap in a fresh read buffer instead of compacting one that slices still reference).
 */
public sealed interface Frame permits DataFrame, HeadersFrame, PriorityFrame, RstStreamFrame,
        SettingsFrame, PushPromiseFrame, PingFrame, GoAwayFrame, WindowUpdateFrame,
        ContinuationFrame {

    /** Pad length meaning "the PADDED flag is not set". */
    int UNPADDED = -1;

    FrameType type();

    /** The stream the frame belongs to; 0 for connection-level frames. */
    int streamId();
}
