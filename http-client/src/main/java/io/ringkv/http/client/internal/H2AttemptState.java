package io.ringkv.http.client.internal;

/**
 * The lifecycle of one stream an {@link H2Exchange} opened (one attempt): whether the stream is
 * open yet, whether the request went out whole, and whether the stream's slot was given back.
 *
 * <pre>
 *   OPENING --OPENED--> SENDING --REQUEST_SENT--> SENT
 *   OPENING --OPENED_WHOLE (no body: END_STREAM on the HEADERS)--> SENT
 *   SENDING, SENT --RESPONSE_ENDED | CANCEL | GONE--> DONE
 * </pre>
 *
 * Entering {@code DONE} is what frees the connection's stream slot, so it happens once per
 * attempt; the step decides whether an RST_STREAM goes out first ({@link #resets}): on a
 * {@code CANCEL} of ours, and on a response that ended while the request was still being sent
 * (RFC 9113 §8.1: the rest of the body is not wanted). Events that race the end of the stream
 * (the request body completing, an abort, a response end crossing an abort) leave {@code DONE}
 * as it is. A {@code CANCEL} before the stream is open leaves {@code OPENING}: nothing is on the
 * wire yet, and the opener checks for the abort once the stream is open. Every other pair is a
 * bug in the caller ({@link #next} throws).
 *
 * <p>Threading: immutable; an attempt holds the current constant in one volatile field and changes
 * it by compare-and-set only, so the step to {@code DONE} has exactly one winner.
 */
enum H2AttemptState {
    /** The slot is taken; the HEADERS are not yet queued. */
    OPENING,
    /** The HEADERS are queued; the request body is still being sent. */
    SENDING,
    /** The whole request is queued (END_STREAM sent); only the response is left. */
    SENT,
    /** The stream is over for this exchange and its slot was given back. */
    DONE;

    /** What happens to an attempt. */
    enum Event {
        /** The HEADERS were queued and a body follows. */
        OPENED,
        /** The HEADERS were queued with END_STREAM, or the stream is an h2c upgrade's (request sent as HTTP/1.1). */
        OPENED_WHOLE,
        /** The request body's last DATA was queued. */
        REQUEST_SENT,
        /** The response's END_STREAM arrived. */
        RESPONSE_ENDED,
        /** We end the stream (abort, or the exchange no longer wants it): RST_STREAM CANCEL if it is open. */
        CANCEL,
        /** The stream ended without us: reset or refused by the peer, the connection failed, or the response body ended after the request was sent. */
        GONE
    }

    /**
     * The state after {@code event}; the same state when the event changes nothing.
     *
     * @throws IllegalStateException if the state machine has no transition for the pair
     */
    H2AttemptState next(Event event) {
        H2AttemptState next = switch (this) {
            case OPENING -> switch (event) {
                case OPENED -> SENDING;
                case OPENED_WHOLE -> SENT;
                case CANCEL -> OPENING;
                case REQUEST_SENT, RESPONSE_ENDED, GONE -> null;
            };
            case SENDING -> switch (event) {
                case REQUEST_SENT -> SENT;
                case RESPONSE_ENDED, CANCEL, GONE -> DONE;
                case OPENED, OPENED_WHOLE -> null;
            };
            case SENT -> switch (event) {
                case RESPONSE_ENDED, CANCEL, GONE -> DONE;
                case OPENED, OPENED_WHOLE, REQUEST_SENT -> null;
            };
            case DONE -> switch (event) {
                case REQUEST_SENT, RESPONSE_ENDED, CANCEL, GONE -> DONE;
                case OPENED, OPENED_WHOLE -> null;
            };
        };
        if (next == null) {
            throw new IllegalStateException("HTTP/2 attempt: no transition from " + this + " on " + event);
        }
        return next;
    }

    /** Whether the step from this state on {@code event} resets the stream before giving its slot back. */
    boolean resets(Event event) {
        return (this == SENDING && (event == Event.CANCEL || event == Event.RESPONSE_ENDED))
                || (this == SENT && event == Event.CANCEL);
    }

    /** Whether the step from this state on {@code event} gives the stream's slot back (it enters {@code DONE}). */
    boolean releases(Event event) {
        return this != DONE && next(event) == DONE;
    }

    /** Whether the stream has an id on the connection (its HEADERS were queued). */
    boolean streamOpened() {
        return this != OPENING;
    }
}
