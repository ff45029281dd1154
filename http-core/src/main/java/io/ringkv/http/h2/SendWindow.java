package io.ringkv.http.h2;

/**
 * How many DATA octets we may still send, for one stream or the whole connection
 * (RFC 9113 §6.9). Sending stops at zero and resumes when WINDOW_UPDATE credits it. The window
 * may go negative after the peer lowers SETTINGS_INITIAL_WINDOW_SIZE (§6.9.2).
 *
 * <p>Threading: not thread-safe; guarded by the connection's critical section.
 */
public final class SendWindow {
    /** RFC 9113 §6.9.1: 2^31-1. */
    public static final long MAX_WINDOW = Integer.MAX_VALUE;

    private final int streamId;
    private long window;

    public SendWindow(int streamId, long initial) {
        this.streamId = streamId;
        this.window = initial;
    }

    /** Octets that may be sent now (0 when the window is exhausted or negative). */
    public int available() {
        return (int) Math.max(0, window);
    }

    public long window() {
        return window;
    }

    public void consume(int bytes) {
        if (bytes > available()) {
            throw new IllegalStateException("sending " + bytes + " octets with window " + window);
        }
        window -= bytes;
    }

    /** RFC 9113 §6.9.1: credit beyond 2^31-1 is a FLOW_CONTROL_ERROR of this window's scope. */
    public void credit(int increment) throws Http2Error {
        if (window + increment > MAX_WINDOW) {
            throw streamId == 0
                    ? new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "window_overflow")
                    : new StreamError(streamId, ErrorCode.FLOW_CONTROL_ERROR, "window_overflow");
        }
        window += increment;
    }

    /** RFC 9113 §6.9.2: a new initial window size shifts every stream window by the delta. */
    public void shift(long delta) throws ConnectionError {
        if (window + delta > MAX_WINDOW) {
            throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "window_overflow_on_settings");
        }
        window += delta;
    }
}
