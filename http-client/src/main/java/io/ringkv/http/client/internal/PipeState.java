package io.ringkv.http.client.internal;

/**
 * The lifecycle of a {@link BodyPipe}: where its consumer is ({@link Consumer}) and how its
 * producer ended ({@link Production}), one constant per pair. The two sides move independently (a
 * body may end before or after the application subscribes, and the producer still ends a body
 * whose subscriber cancelled), so each legal transition moves exactly one side one step:
 *
 * <pre>
 *   consumer:   UNSUBSCRIBED --subscribe--> SUBSCRIBED --cancel--> CANCELLED --drain--> TERMINATED
 *                                              |                                         ^
 *                                              +--drain: terminal signal, body ended-----+
 *   production: OPEN --complete--> COMPLETED
 *               OPEN --fail------> FAILED
 * </pre>
 *
 * A subscriber is terminated from {@code SUBSCRIBED} only once the body ended (that step delivers
 * {@code onComplete} or {@code onError}); from {@code CANCELLED} at any time (it delivers nothing,
 * or the error of a non-positive request). Nothing leaves {@code TERMINATED}, and production never
 * reopens.
 *
 * <p>Where a piece goes (queued, or copied on arrival) is not part of this state: it changes once
 * at most, under the pipe's queue lock, and no transition depends on it.
 *
 * <p>Threading: immutable; the pipe holds the current constant in one field and changes it by
 * compare-and-set only.
 */
enum PipeState {
    UNSUBSCRIBED_OPEN(Consumer.UNSUBSCRIBED, Production.OPEN),
    UNSUBSCRIBED_COMPLETED(Consumer.UNSUBSCRIBED, Production.COMPLETED),
    UNSUBSCRIBED_FAILED(Consumer.UNSUBSCRIBED, Production.FAILED),
    SUBSCRIBED_OPEN(Consumer.SUBSCRIBED, Production.OPEN),
    SUBSCRIBED_COMPLETED(Consumer.SUBSCRIBED, Production.COMPLETED),
    SUBSCRIBED_FAILED(Consumer.SUBSCRIBED, Production.FAILED),
    CANCELLED_OPEN(Consumer.CANCELLED, Production.OPEN),
    CANCELLED_COMPLETED(Consumer.CANCELLED, Production.COMPLETED),
    CANCELLED_FAILED(Consumer.CANCELLED, Production.FAILED),
    TERMINATED_OPEN(Consumer.TERMINATED, Production.OPEN),
    TERMINATED_COMPLETED(Consumer.TERMINATED, Production.COMPLETED),
    TERMINATED_FAILED(Consumer.TERMINATED, Production.FAILED);

    /** The consumer's side, in the order it moves. */
    enum Consumer {
        /** Nobody subscribed yet: pieces queue up (or go to a copier the producer attached). */
        UNSUBSCRIBED,
        /** A subscriber is attached and may be signalled. */
        SUBSCRIBED,
        /** The subscriber cancelled; the drain has not yet seen it. */
        CANCELLED,
        /** The drain delivered the last signal (or, after a cancel, none): the pipe is finished. */
        TERMINATED
    }

    /** The producer's side. */
    enum Production {
        OPEN,
        COMPLETED,
        FAILED
    }

    private static final PipeState[] BY_SIDES = values(); // ordinal = consumer * 3 + production
    /** Production.values().length, read once: values() clones its array on every call. */
    private static final int PRODUCTIONS = Production.values().length;

    final Consumer consumer;
    final Production production;

    PipeState(Consumer consumer, Production production) {
        this.consumer = consumer;
        this.production = production;
    }

    static PipeState of(Consumer consumer, Production production) {
        return BY_SIDES[consumer.ordinal() * PRODUCTIONS + production.ordinal()];
    }

    PipeState with(Consumer next) {
        return of(next, production);
    }

    PipeState with(Production next) {
        return of(consumer, next);
    }

    /** Whether the producer ended the body, normally or not. */
    boolean ended() {
        return production != Production.OPEN;
    }

    /** Whether the subscriber is gone: it cancelled, or it was signalled its end. */
    boolean consumerGone() {
        return consumer == Consumer.CANCELLED || consumer == Consumer.TERMINATED;
    }

    /** Whether the pipe may go from this state to {@code next}: one side moves one step (see above). */
    boolean canBecome(PipeState next) {
        if (next.consumer == consumer) {
            return production == Production.OPEN && next.production != Production.OPEN;
        }
        if (next.production != production) {
            return false;
        }
        return switch (consumer) {
            case UNSUBSCRIBED -> next.consumer == Consumer.SUBSCRIBED;
            case SUBSCRIBED -> next.consumer == Consumer.CANCELLED
                    || (next.consumer == Consumer.TERMINATED && ended());
            case CANCELLED -> next.consumer == Consumer.TERMINATED;
            case TERMINATED -> false;
        };
    }
}
