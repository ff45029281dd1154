package io.ringkv.http.client.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two parts of a job that finish on different threads (an HTTP/1.1 exchange: the request written
 * by the caller or the executor, the response read by the event loop), and exactly one of the
 * two calls learns that both are done.
 *
 * <p>Both parts live in one word. With a flag per part, each thread could set its own flag and
 * then see the other's, so both went on to hand the connection back, and it sat in the pool
 * twice: two exchanges ran on it at once ("previous response not finished", seen once in a
 * benchmark with 64 requests in flight).
 *
 * <p>Threading: any thread; each part is marked once.
 */
final class TwoPartCompletion {
    private static final int FIRST = 1;
    private static final int SECOND = 2;
    private static final int BOTH = FIRST | SECOND;

    private final AtomicInteger done = new AtomicInteger();

    /** Marks the first part done; true if this call completed both. */
    boolean firstDone() {
        return mark(FIRST);
    }

    /** Marks the second part done; true if this call completed both. */
    boolean secondDone() {
        return mark(SECOND);
    }

    private boolean mark(int part) {
        int before = done.getAndAccumulate(part, (current, bit) -> current | bit);
        return (before & part) == 0 && (before | part) == BOTH;
    }
}
