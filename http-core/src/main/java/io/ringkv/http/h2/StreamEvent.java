package io.ringkv.http.h2;

/**
 * What can happen to a stream, from this endpoint's point of view. END_STREAM is its own
 * event, applied right after the HEADERS or DATA that carried the flag. PUSH_PROMISE events
 * apply to the promised stream.
 */
public enum StreamEvent {
    SEND_HEADERS, RECV_HEADERS,
    SEND_DATA, RECV_DATA,
    SEND_END_STREAM, RECV_END_STREAM,
    SEND_PUSH_PROMISE, RECV_PUSH_PROMISE,
    SEND_RST_STREAM, RECV_RST_STREAM,
    RECV_WINDOW_UPDATE, RECV_PRIORITY;

    boolean isSend() {
        return name().startsWith("SEND_");
    }
}
