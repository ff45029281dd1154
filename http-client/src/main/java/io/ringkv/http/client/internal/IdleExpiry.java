package io.ringkv.http.client.internal;

import io.ringkv.net.EventLoop;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Closes a pooled connection that stayed idle for a whole timeout, with at most one timer pending
 * per connection however many times it goes idle and busy again.
 *
 * <p>Why not a timer per idle period: a connection that carries back-to-back requests goes idle
 * after each one, and a timer per period left rate x timeout cancelled entries in the loop's
 * timer queue. Here the one timer, when it fires, looks at when the current idle period began and
 * sleeps again for the rest of it.
 *
 * <p>Threading: {@link #idle} and {@link #busy} from any thread; the check runs on the loop. The
 * owner's {@code onExpired} must re-check under its own lock that the connection is still idle:
 * it may have been taken between this class's look and the call.
 */
final class IdleExpiry {
    private final long timeoutNanos;
    private final Runnable onExpired;
    private final AtomicBoolean armed = new AtomicBoolean();
    private volatile boolean idle;
    private volatile long idleSinceNanos;

    IdleExpiry(Duration timeout, Runnable onExpired) {
        this.timeoutNanos = timeout.toNanos();
        this.onExpired = onExpired;
    }

    /** The connection went idle now. */
    void idle(EventLoop loop) {
        idleSinceNanos = loop.nanoTime();
        idle = true;
        arm(loop, timeoutNanos);
    }

    /** The connection carries work again. */
    void busy() {
        idle = false;
    }

    private void arm(EventLoop loop, long delayNanos) {
        if (armed.compareAndSet(false, true)) {
            loop.schedule(() -> check(loop), delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void check(EventLoop loop) {
        if (!idle) {
            armed.set(false);
            if (idle) {
                arm(loop, timeoutNanos); // went idle again while we disarmed: its idle() saw us armed
            }
            return;
        }
        long remaining = idleSinceNanos + timeoutNanos - loop.nanoTime();
        if (remaining > 0) {
            loop.schedule(() -> check(loop), remaining, TimeUnit.NANOSECONDS); // still armed
            return;
        }
        armed.set(false);
        onExpired.run();
    }
}
