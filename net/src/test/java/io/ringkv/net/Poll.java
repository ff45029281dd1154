package io.ringkv.net;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition on real I/O with a deadline, instead of sleeping a fixed time. */
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
            Thread.onSpinWait();
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what);
            }
        }
    }

    static <T> T value(String what, Supplier<T> supplier) {
        Object[] holder = new Object[1];
        until(what, () -> (holder[0] = supplier.get()) != null);
        @SuppressWarnings("unchecked")
        T result = (T) holder[0];
        return result;
    }
}
