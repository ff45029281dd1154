package io.ringkv.http.server.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of request bodies being received, all connections together, against a maximum: body
 * buffers grow as bytes arrive, and each growth is reserved here first. A reservation that would
 * pass the maximum fails, and the request gets 503, so a crowd of slow or huge uploads cannot
 * take the heap. Bytes are given back when the body is handed to its handler or dropped.
 *
 * <p>Threading: thread-safe (one atomic counter); reserved on event loops.
 */
final class BodyMemoryBudget {
    private final long max;
    private final AtomicLong reserved = new AtomicLong();

    BodyMemoryBudget(long max) {
        this.max = max;
    }

    boolean tryReserve(long bytes) {
        while (true) {
            long current = reserved.get();
            if (current + bytes > max) {
                return false;
            }
            if (reserved.compareAndSet(current, current + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    long reserved() {
        return reserved.get();
    }
}
