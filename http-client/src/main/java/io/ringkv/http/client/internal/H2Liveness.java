package io.ringkv.http.client.internal;

import java.time.Duration;

/**
 * When an HTTP/2 connection should be probed with a PING (RFC 9113 §6.7) and when it should be
 * given up: after {@code interval} with nothing received, a PING goes out; if nothing at all
 * (its ACK or any other frame) arrives within {@code timeout}, the peer is presumed gone and the
 * connection is closed, so that a pooled connection whose peer vanished silently (a NAT that
 * dropped the mapping, a host that died without a FIN) fails here rather than under the next
 * request.
 *
 * <p>Worked example, interval 30 s, timeout 10 s: last bytes at t=0; check at t=30 sends a PING;
 * no answer by t=40: close. If the ACK arrives at t=31, the next PING goes at t=61.
 *
 * <p>Threading: confined to the connection's event loop. Pure apart from its two fields: time is
 * passed in as {@code now} (nanoseconds) and each check returns the delay until the next one.
 */
final class H2Liveness {
    /** What the connection should do now. */
    enum Action { NONE, PING, CLOSE }

    /** @param delayNanos when to check again (ignored after CLOSE) */
    record Decision(Action action, long delayNanos) {
    }

    private static final long NO_PING = Long.MIN_VALUE;

    private final long intervalNanos;
    private final long timeoutNanos;
    private long lastReadNanos;
    private long pingSentNanos = NO_PING;

    /** @param interval {@link Duration#ZERO} disables probing ({@link #enabled()} is false) */
    H2Liveness(Duration interval, Duration timeout) {
        this.intervalNanos = interval.toNanos();
        this.timeoutNanos = timeout.toNanos();
    }

    boolean enabled() {
        return intervalNanos > 0;
    }

    /** Delay before the first check, from the connection's open. */
    long start(long now) {
        lastReadNanos = now;
        return intervalNanos;
    }

    /** Bytes arrived: the peer is alive, whether or not they carried the ACK. */
    void onRead(long now) {
        lastReadNanos = now;
        pingSentNanos = NO_PING;
    }

    Decision check(long now) {
        if (pingSentNanos != NO_PING) {
            long waited = now - pingSentNanos;
            return waited >= timeoutNanos
                    ? new Decision(Action.CLOSE, 0) : new Decision(Action.NONE, timeoutNanos - waited);
        }
        long quiet = now - lastReadNanos;
        if (quiet >= intervalNanos) {
            pingSentNanos = now;
            return new Decision(Action.PING, timeoutNanos);
        }
        return new Decision(Action.NONE, intervalNanos - quiet);
    }
}
