package io.ringkv.store;

/**
 * Where a {@link HybridLogicalClock} keeps the high-water mark of the timestamps it may issue,
 * so that a restarted node never issues a timestamp lower than one it issued before, even when
 * the wall clock went back meanwhile.
 *
 * <p>Threading: called by the clock under its own lock; implementations need no more.
 */
public interface ClockLease {

    /** No persistence: a clock that starts from zero (tests, simulations). */
    ClockLease NONE = new ClockLease() {
        @Override
        public long loadMillis() {
            return 0;
        }

        @Override
        public void storeMillis(long millis) {
        }
    };

    /** The stored mark in epoch millis, 0 when none was stored. */
    long loadMillis() throws StoreException;

    /** Stores the mark durably before returning. */
    void storeMillis(long millis) throws StoreException;
}
