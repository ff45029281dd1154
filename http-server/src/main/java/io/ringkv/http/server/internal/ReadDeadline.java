package io.ringkv.http.server.internal;

import io.ringkv.net.EventLoop;
import io.ringkv.net.ScheduledTask;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The one timer of a server connection, and the rule for when the client has taken too long.
 *
 * <ul>
 *   <li>{@link Phase#HEAD}: bytes of a request head have arrived; the whole head must be in within
 *       the header-read timeout of its first byte, however the client trickles it.</li>
 *   <li>{@link Phase#AWAITING_REQUEST}: nothing of the next request yet. A fresh connection gets the
 *       header-read timeout from connect; a kept-alive one the idle timeout from its last activity.</li>
 *   <li>{@link Phase#BODY}: a request body must make progress within the idle timeout.</li>
 *   <li>{@link Phase#RESPONDING}: responses are pending; checked every idle timeout so the session
 *       can cut off a client that stopped reading.</li>
 * </ul>
 *
 * <p>The timer is not moved on every read: when it fires it recomputes the deadline from the
 * latest activity and re-arms if that lies ahead. Time is the loop's clock.
 *
 * <p>Threading: confined to the connection's event loop.
 */
final class ReadDeadline {

    enum Phase { NONE, AWAITING_REQUEST, HEAD, BODY, RESPONDING }

    private static final long UNSET = Long.MIN_VALUE;

    private final long idleNanos;
    private final long headerNanos;
    private final Supplier<Phase> phase;
    private final Consumer<Phase> onTimeout;
    private EventLoop loop;
    private long lastActivityNanos;
    private long headStartNanos = UNSET;
    private boolean headBytesSeen;
    private ScheduledTask timer;
    private long timerDeadlineNanos;
    private boolean stopped;

    /**
     * @param phase     what the connection is doing now
     * @param onTimeout called on the loop with the phase whose deadline passed
     */
    ReadDeadline(Duration idleTimeout, Duration headerReadTimeout, Supplier<Phase> phase, Consumer<Phase> onTimeout) {
        this.idleNanos = idleTimeout.toNanos();
        this.headerNanos = headerReadTimeout.toNanos();
        this.phase = phase;
        this.onTimeout = onTimeout;
    }

    /** The connection is open: its first request head is due within the header-read timeout. */
    void start(EventLoop owner) {
        loop = owner;
        lastActivityNanos = loop.nanoTime();
        headStartNanos = lastActivityNanos;
    }

    void onInput() {
        lastActivityNanos = loop.nanoTime();
    }

    /** Bytes of a request head were consumed, the head is not complete yet. */
    void onHeadBytes() {
        headBytesSeen = true;
        if (headStartNanos == UNSET) {
            headStartNanos = loop.nanoTime();
        }
    }

    void onHeadComplete() {
        headStartNanos = UNSET;
        headBytesSeen = false;
    }

    /** Output drained, or a stall check found progress. */
    void onProgress() {
        lastActivityNanos = loop.nanoTime();
    }

    void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** Makes sure the timer fires no later than the current phase's deadline. */
    void arm() {
        if (stopped) {
            return;
        }
        Phase current = effective(phase.get());
        if (current == Phase.NONE) {
            return;
        }
        long deadline = deadlineOf(current);
        if (timer != null && timerDeadlineNanos - deadline <= 0) {
            return; // the pending timer fires first and re-evaluates then
        }
        if (timer != null) {
            timer.cancel();
        }
        timerDeadlineNanos = deadline;
        timer = loop.schedule(this::fire, Math.max(0, deadline - loop.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void fire() {
        timer = null;
        if (stopped) {
            return;
        }
        Phase current = effective(phase.get());
        if (current == Phase.NONE) {
            return;
        }
        if (loop.nanoTime() - deadlineOf(current) >= 0) {
            onTimeout.accept(current);
        }
        arm();
    }

    private Phase effective(Phase reported) {
        return reported == Phase.AWAITING_REQUEST && headBytesSeen ? Phase.HEAD : reported;
    }

    private long deadlineOf(Phase current) {
        return switch (current) {
            case HEAD -> headStartNanos + headerNanos;
            case AWAITING_REQUEST -> headStartNanos != UNSET ? headStartNanos + headerNanos : lastActivityNanos + idleNanos;
            case BODY, RESPONDING, NONE -> lastActivityNanos + idleNanos;
        };
    }
}
