package io.ringkv.http.client.internal;

/**
 * The lifecycle of one client {@link H2Connection}: whether it may take new streams, and whether
 * its socket is gone.
 *
 * <pre>
 *   CONNECTING --OPENED--> ACCEPTING --GOAWAY_RECEIVED | PING_UNANSWERED | PROTOCOL_FAILED
 *                                       | HEADERS_DROPPED | SHUTDOWN--> DRAINING
 *   CONNECTING --SHUTDOWN--> DRAINING
 *   any --SOCKET_CLOSED--> CLOSED
 * </pre>
 *
 * A connection that stopped accepting never accepts again: its open streams finish (or fail) and
 * it closes once none is left. Stop reasons arrive from several threads and may repeat (a second
 * GOAWAY, a shutdown of a connection that already failed), so each leaves {@code DRAINING} and
 * {@code CLOSED} as they are. What cannot happen is a bug in the caller and {@link #next} throws:
 * a socket opened twice or after it closed, and any stop reason but {@code SHUTDOWN} before the
 * socket is open (no frame is read, no stream opened and no PING sent before then).
 *
 * <p>Threading: immutable; the connection holds the current constant in one volatile field and
 * changes it by compare-and-set only.
 */
enum H2ConnectionState {
    /** The socket is not open yet; a stream slot may already be reserved for when it is. */
    CONNECTING,
    /** Open, and new streams may start. */
    ACCEPTING,
    /** No new stream starts here; open ones finish, then the socket closes. */
    DRAINING,
    /** The socket closed. */
    CLOSED;

    /** What happens to a connection. */
    enum Event {
        /** The socket opened (or an HTTP/1.1 connection switched to HTTP/2 by {@code Upgrade: h2c}). */
        OPENED,
        /** The server sent GOAWAY (RFC 9113 §6.8). */
        GOAWAY_RECEIVED,
        /** A liveness PING went unanswered. */
        PING_UNANSWERED,
        /** The protocol found a connection error and queued its GOAWAY. */
        PROTOCOL_FAILED,
        /** The socket began closing and dropped a stream's HEADERS. */
        HEADERS_DROPPED,
        /** The client shuts down, or the connection idled out: GOAWAY NO_ERROR. */
        SHUTDOWN,
        /** The socket closed. */
        SOCKET_CLOSED
    }

    /**
     * The state after {@code event}; the same state when the event changes nothing.
     *
     * @throws IllegalStateException if the state machine has no transition for the pair
     */
    H2ConnectionState next(Event event) {
        H2ConnectionState next = switch (this) {
            case CONNECTING -> switch (event) {
                case OPENED -> ACCEPTING;
                case SHUTDOWN -> DRAINING;
                case SOCKET_CLOSED -> CLOSED;
                case GOAWAY_RECEIVED, PING_UNANSWERED, PROTOCOL_FAILED, HEADERS_DROPPED -> null;
            };
            case ACCEPTING -> switch (event) {
                case OPENED -> null;
                case GOAWAY_RECEIVED, PING_UNANSWERED, PROTOCOL_FAILED, HEADERS_DROPPED, SHUTDOWN -> DRAINING;
                case SOCKET_CLOSED -> CLOSED;
            };
            case DRAINING -> switch (event) {
                // OPENED: the client shut down while the socket was still connecting.
                case OPENED, GOAWAY_RECEIVED, PING_UNANSWERED, PROTOCOL_FAILED, HEADERS_DROPPED, SHUTDOWN -> DRAINING;
                case SOCKET_CLOSED -> CLOSED;
            };
            case CLOSED -> switch (event) {
                case OPENED -> null;
                case GOAWAY_RECEIVED, PING_UNANSWERED, PROTOCOL_FAILED, HEADERS_DROPPED, SHUTDOWN, SOCKET_CLOSED -> CLOSED;
            };
        };
        if (next == null) {
            throw new IllegalStateException("HTTP/2 connection: no transition from " + this + " on " + event);
        }
        return next;
    }

    /** Whether a new stream may be reserved and opened. */
    boolean acceptsStreams() {
        return this == CONNECTING || this == ACCEPTING;
    }
}
