package io.ringkv.http.h2;

/**
 * HTTP/2 connection state.
 *
 * <pre>
 *   AWAITING_SETTINGS --recv SETTINGS--> OPEN --send/recv GOAWAY--> DRAINING
 *   any --connection error or GOAWAY with an error sent--> CLOSED
 * </pre>
 * RFC 9113 §3.4: the peer's first frame must be SETTINGS. In DRAINING, streams already open
 * finish; no new ones start.
 */
public enum ConnectionState {
    AWAITING_SETTINGS, OPEN, DRAINING, CLOSED;

    public boolean acceptsNewStreams() {
        return this == AWAITING_SETTINGS || this == OPEN;
    }
}
