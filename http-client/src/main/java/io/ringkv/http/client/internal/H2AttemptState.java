package io.ringkv.http.client.internal;

/**
 * The lifecycle of one stream an {@link H2Exchange} opened (one attempt): whether the stream is
 * open yet, whether the request went out whole, whether the stream's slot was given back, and
 * whether the response ended and its body was completed.
 *
 * <pre>
 *   OPENING --OPENED--> SENDING --REQUEST_SENT--> SENT
 *   OPENING --OPENED_WHOLE (no body: END_STREAM on the HEADERS)--> SENT
 *   SENDING, SENT --CANCEL | GONE--> DONE
 *   SENDING, SENT --RESPONSE_ENDED--> ENDED --SETTLED--> COMPLETED
 * </pre>
 *
 * Leaving {@code SENDING} or {@code SENT} for {@code DONE} or {@code ENDED} is what frees the
 * connection's stream slot, so it happens once per attempt; the step decides whether an
 * RST_STREAM goes out first ({@link #resets}): on a {@code CANCEL} of ours, and on a response that
 * ended while the request was still being sent (RFC 9113 §8.1: the rest of the body is not
 * wanted). A response that ended completes its body only once every push promise that came with
 * it is decided: {@code SETTLED} says no promise is undecided any more, and completes the body
 * (once) if the response ended, and changes nothing otherwise.
 *
 * <p>Events that race the end of the stream (the request body completing, an abort, a response
 * end crossing an abort) leave {@code DONE}, {@code ENDED} and {@code COMPLETED} as they are. A
 * {@code CANCEL} before the stream is open leaves {@code OPENING}: nothing is on the wire yet, and
 * the opener checks for the abort once the stream is open. Every other pair is a bug in the
 * caller ({@link #next} throws): an event of an open stream before it opened, a stream opened
 * twice, a request sent twice, a response that ends twice.
 *
 * <p>Threading: immutable; an attempt holds the current constant in one volatile field and changes
 * it by compare-and-set only, so each step that frees the slot or completes the body has exactly
 * one winner.
 */
enum H2AttemptState {
    /** The slot is taken; the HEADERS are not yet queued. */
    OPENING,
    /** The HEADERS are queued; the request body is still being sent. */
    SENDING,
    /** The whole request is queued (END_STREAM sent); only the response is left. */
    SENT,
    /** The stream ended without a complete response (reset, refused, failed, cancelled); its slot was given back. */
    DONE,
    /** The response ended; the slot was given back; the body waits for the push promises to be decided. */
    ENDED,
    /** The response ended and its body was completed. */
    COMPLETED;

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
        GONE,
        /** No push promise is undecided: the body may complete if the response ended. */
        SETTLED
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
                case CANCEL, SETTLED -> OPENING;
                case REQUEST_SENT, RESPONSE_ENDED, GONE -> null;
            };
            case SENDING -> switch (event) {
                case REQUEST_SENT -> SENT;
                case RESPONSE_ENDED -> ENDED;
                case CANCEL, GONE -> DONE;
                case SETTLED -> SENDING;
                case OPENED, OPENED_WHOLE -> null;
            };
            case SENT -> switch (event) {
                case RESPONSE_ENDED -> ENDED;
                case CANCEL, GONE -> DONE;
                case SETTLED -> SENT;
                case OPENED, OPENED_WHOLE, REQUEST_SENT -> null;
            };
            case DONE -> switch (event) {
                case REQUEST_SENT, RESPONSE_ENDED, CANCEL, GONE, SETTLED -> DONE;
                case OPENED, OPENED_WHOLE -> null;
            };
            case ENDED -> switch (event) {
                case REQUEST_SENT, CANCEL, GONE -> ENDED;
                case SETTLED -> COMPLETED;
                case OPENED, OPENED_WHOLE, RESPONSE_ENDED -> null;
            };
            case COMPLETED -> switch (event) {
                case REQUEST_SENT, CANCEL, GONE, SETTLED -> COMPLETED;
                case OPENED, OPENED_WHOLE, RESPONSE_ENDED -> null;
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

    /** Whether the step from this state on {@code event} gives the stream's slot back (it ends the stream). */
    boolean releases(Event event) {
        return (this == SENDING || this == SENT) && (next(event) == DONE || next(event) == ENDED);
    }

    /** Whether the step from this state on {@code event} completes the response body. */
    boolean completesBody(Event event) {
        return this == ENDED && event == Event.SETTLED;
    }
}
