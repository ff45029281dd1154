package io.ringkv.store;

import java.util.Arrays;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed set of locks, one chosen per key by hash: two writers of the same key always take the
 * same lock, writers of different keys rarely contend. Memory is bounded by the stripe count,
 * not by the number of keys. {@link ReentrantLock} rather than {@code synchronized} because
 * callers may be virtual threads and hold the lock across a RocksDB write (disk I/O).
 *
 * <p>Thread-safe; immutable after construction.
 */
final class StripedLocks {

    private final Lock[] locks;

    StripedLocks(int stripes) {
        if (stripes < 1 || Integer.bitCount(stripes) != 1) {
            throw new IllegalArgumentException("stripes must be a power of two: " + stripes);
        }
        locks = new Lock[stripes];
        for (int i = 0; i < stripes; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    Lock forKey(byte[] key) {
        return locks[stripeOf(key)];
    }

    /** The index of {@code key}'s lock; a caller taking several takes them in ascending index order. */
    int stripeOf(byte[] key) {
        int hash = Arrays.hashCode(key);
        // Spread the high bits down: Arrays.hashCode of short keys differs mostly in low bits,
        // but keys sharing a suffix would otherwise collide on small stripe counts.
        hash ^= hash >>> 16;
        return hash & (locks.length - 1);
    }

    Lock stripe(int index) {
        return locks[index];
    }

    int stripes() {
        return locks.length;
    }

    /** Takes every lock, in ascending index order (as a caller taking several must): no key can be written until {@link #unlockAll}. */
    void lockAll() {
        for (Lock lock : locks) {
            lock.lock();
        }
    }

    /** Releases what {@link #lockAll} took. */
    void unlockAll() {
        for (int i = locks.length - 1; i >= 0; i--) {
            locks[i].unlock();
        }
    }
}
