package io.ringkv.cluster.peer;

/**
 * The lifecycle of a {@link PeerConnection}, changed only by {@link #next}:
 *
 * <pre>
 * CONNECTING --SETTINGS--> OPEN --RETIRE--> DRAINING --CLOSE--> CLOSED
 *     |                                                   ^
 *     +--RETIRE--> DRAINING           any state --CLOSE---+
 * </pre>
 *
 * A connection takes new requests while connecting (they wait for the peer's SETTINGS) and while
 * open; once retired (the peer's GOAWAY, an HTTP/2 connection error, idle) its streams finish and
 * the next request opens another connection; closed is final.
 */
enum PeerConnectionState {
    CONNECTING, OPEN, DRAINING, CLOSED;

    enum Event {
        /** The peer's first SETTINGS arrived: its stream limit is known. */
        SETTINGS,
        /** No new streams from now on: a GOAWAY, a connection error, idle for too long. */
        RETIRE,
        /** The socket closed, or the connection was given up. */
        CLOSE
    }

    PeerConnectionState next(Event event) {
        return switch (event) {
            case SETTINGS -> this == CONNECTING ? OPEN : this;
            case RETIRE -> this == CONNECTING || this == OPEN ? DRAINING : this;
            case CLOSE -> CLOSED;
        };
    }

    /** Whether a new request may go to a connection in this state. */
    boolean takesRequests() {
        return this == CONNECTING || this == OPEN;
    }
}
