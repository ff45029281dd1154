package io.ringkv.http.h2;

/**
 * HTTP/2 connection state, for either role, with its one transition function ({@link #next}).
 *
 * <pre>
 *   AWAITING_SETTINGS --SETTINGS_RECEIVED--> OPEN --GOAWAY_RECEIVED | GOAWAY_SENT--> DRAINING
 *   AWAITING_SETTINGS --GOAWAY_SENT--> DRAINING
 *   any --CONNECTION_ERROR | TRANSPORT_CLOSED--> CLOSED
 * </pre>
 * RFC 9113 §3.4: the peer's first frame must be SETTINGS. In DRAINING, streams already open
 * finish; no new ones start. Nothing leaves CLOSED: a graceful GOAWAY after a connection error
 * does not reopen the connection to input. Later SETTINGS and further GOAWAYs leave the state as
 * it is. Refused as a bug in the caller: a GOAWAY received before the peer's SETTINGS (the parser
 * rejects any other first frame as a connection error) and SETTINGS received once closed (a
 * closed connection ignores its input).
 *
 * <p>Threading: immutable; {@link Http2Connection} holds the current constant, under its caller's
 * critical section.
 */
public enum ConnectionState {
    AWAITING_SETTINGS, OPEN, DRAINING, CLOSED;

    /** What happens to a connection. */
    public enum Event {
        /** The peer's SETTINGS (not an acknowledgement) arrived. */
        SETTINGS_RECEIVED,
        /** The peer sent GOAWAY. */
        GOAWAY_RECEIVED,
        /** We sent GOAWAY NO_ERROR: streams in flight finish. */
        GOAWAY_SENT,
        /** A connection error: we sent GOAWAY with an error code (found by the protocol, or decided by its owner). */
        CONNECTION_ERROR,
        /** The owner's transport closed: no input will come, nothing can be sent. */
        TRANSPORT_CLOSED
    }

    /**
     * The state after {@code event}; the same state when the event changes nothing.
     *
     * @throws IllegalStateException if the state machine has no transition for the pair
     */
    public ConnectionState next(Event event) {
        ConnectionState next = switch (event) {
            case CONNECTION_ERROR, TRANSPORT_CLOSED -> CLOSED;
            case SETTINGS_RECEIVED -> switch (this) {
                case AWAITING_SETTINGS -> OPEN;
                case OPEN, DRAINING -> this;
                case CLOSED -> null;
            };
            case GOAWAY_RECEIVED -> switch (this) {
                case AWAITING_SETTINGS -> null;
                case OPEN, DRAINING -> DRAINING;
                case CLOSED -> CLOSED;
            };
            case GOAWAY_SENT -> this == CLOSED ? CLOSED : DRAINING;
        };
        if (next == null) {
            throw new IllegalStateException("HTTP/2 connection: no transition from " + this + " on " + event);
        }
        return next;
    }

    public boolean acceptsNewStreams() {
        return this == AWAITING_SETTINGS || this == OPEN;
    }
}
