package io.ringkv.http.server;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition on real I/O with a deadline instead of sleeping a fixed time. Test helper. */
final class Poll {
    static final Duration DEADLINE = Duration.ofSeconds(20);

    private Poll() {
    }

    static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what);
            }
        }
    }
}
