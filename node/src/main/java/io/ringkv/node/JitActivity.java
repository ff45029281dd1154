package io.ringkv.node;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Tells when the JIT has done the bulk of its work: over the last {@link #WINDOW_NANOS} the JVM's
 * total compilation time (summed over the compiler threads) grew by less than a tenth of the
 * window. Under a steady load compilation starts as a flood (hundreds of methods a second) and
 * falls to a trickle of recompilations that never quite stops, so "no compilation at all" would
 * never come; a tenth of one compiler thread's time is the trickle.
 *
 * <p>Threading: one thread calls {@link #quiet}.
 */
final class JitActivity {
    static final long WINDOW_NANOS = 1_000_000_000L;
    static final long QUIET_GROWTH_MILLIS = WINDOW_NANOS / 1_000_000 / 10;

    private final CompilationMXBean compilation = ManagementFactory.getCompilationMXBean();
    private long windowStartNanos = System.nanoTime();
    private long windowStartMillis = compileMillis();

    /** @return true once a whole window passed with (almost) no compilation; false if the JVM cannot say */
    boolean quiet() {
        long now = System.nanoTime();
        if (now - windowStartNanos < WINDOW_NANOS) {
            return false;
        }
        long millis = compileMillis();
        boolean quiet = millis >= 0 && millis - windowStartMillis <= QUIET_GROWTH_MILLIS;
        windowStartNanos = now;
        windowStartMillis = millis;
        return quiet;
    }

    private long compileMillis() {
        return compilation != null && compilation.isCompilationTimeMonitoringSupported()
                ? compilation.getTotalCompilationTime() : -1;
    }
}
