package io.ringkv.http.client.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether a caller of a synchronous {@code send} may busy-wait for its answer before it parks,
 * decided once per wait for the whole client.
 *
 * <p>Why spin at all: when the other CPUs are idle between requests (a quiet virtual machine
 * above all), waking a parked thread costs a wake-up of a halted CPU, tens of microseconds each,
 * and a small request over loopback makes three of them. Spinning saves the caller's.
 *
 * <p>Why only sometimes: a spin that times out is CPU thrown away, and many callers spinning at
 * once would take the CPUs the answers need. So at most {@code cpus - 1} callers spin at a time
 * (none on a single CPU), and the client keeps a credit: each spin that found its work earns one
 * point (up to {@value #CREDIT_MAX}), each one that timed out costs {@value #TIMEOUT_COST}. With
 * no credit left only every {@value #PROBE_INTERVAL}th wait spins, to notice when answers become
 * fast again. Under answers that are always slow, spinning costs one timeout per
 * {@value #PROBE_INTERVAL} waits.
 *
 * <p>Threading: thread-safe, lock-free.
 */
final class SpinPolicy {
    static final int CREDIT_MAX = 16;
    static final int TIMEOUT_COST = 4;
    static final int PROBE_INTERVAL = 32;

    private final long spinNanos;
    private final int spinnersMax;
    private final AtomicInteger spinners = new AtomicInteger();
    private final AtomicInteger credit = new AtomicInteger(CREDIT_MAX);
    private final AtomicInteger waitsWithoutCredit = new AtomicInteger();

    /**
     * @param spin        how long one spin may last; zero never spins
     * @param spinnersMax how many callers may spin at once (zero never spins)
     */
    SpinPolicy(Duration spin, int spinnersMax) {
        this.spinNanos = spin.toNanos();
        this.spinnersMax = spinnersMax;
    }

    /** The client's policy: as many spinners as there are CPUs but one. */
    static SpinPolicy forThisMachine(Duration spin) {
        return new SpinPolicy(spin, Runtime.getRuntime().availableProcessors() - 1);
    }

    long spinNanos() {
        return spinNanos;
    }

    /** Whether the caller may spin now; if so it must report the outcome to {@link #end}. */
    boolean tryBegin() {
        if (spinNanos <= 0 || spinnersMax <= 0) {
            return false;
        }
        if (credit.get() <= 0 && waitsWithoutCredit.incrementAndGet() % PROBE_INTERVAL != 0) {
            return false;
        }
        if (spinners.incrementAndGet() > spinnersMax) {
            spinners.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A spin allowed by {@link #tryBegin} is over: {@code foundWork} unless it timed out. */
    void end(boolean foundWork) {
        spinners.decrementAndGet();
        if (foundWork) {
            if (credit.get() < CREDIT_MAX) { // the common case writes nothing shared
                credit.updateAndGet(c -> Math.min(CREDIT_MAX, c + 1));
            }
        } else {
            credit.updateAndGet(c -> Math.max(0, c - TIMEOUT_COST));
        }
    }
}
