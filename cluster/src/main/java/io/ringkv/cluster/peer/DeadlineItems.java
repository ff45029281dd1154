package io.ringkv.cluster.peer;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The hand-over between the thread that receives an answer's body and the one that reads it, for
 * the two body streams ({@link PeerBodyStream}, {@link DeadlineBodyStream}): pieces of the body,
 * then its end or its failure, each taken with a deadline, so that a peer that stalls mid-body
 * costs the reader at most that long per take.
 *
 * <p>Threading: one thread puts, one thread takes.
 *
 * @param <T> a piece of the body
 */
final class DeadlineItems<T> {
    /** Marks the end of the body (a sentinel, never confused with a piece). */
    private static final Object END = new Object();

    private final BlockingQueue<Object> items;
    private final long idleTimeoutNanos;
    /** Names the body in messages, e.g. "the peer's answer". */
    private final String what;

    /** @param items the queue, bounded or not, as the producer's demand needs */
    DeadlineItems(BlockingQueue<Object> items, Duration idleTimeout, String what) {
        this.items = items;
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.what = what;
    }

    void put(T piece) {
        items.add(piece);
    }

    void end() {
        items.add(END);
    }

    void fail(Throwable cause) {
        items.add(cause);
    }

    boolean isEmpty() {
        return items.isEmpty();
    }

    /**
     * The next piece, or null at the end of the body.
     *
     * @param giveUp run before throwing for a timeout or an interrupt (the reader abandons the body)
     * @throws HttpTimeoutException when no piece came for the idle timeout
     * @throws IOException          when the body failed, or the thread was interrupted
     */
    @SuppressWarnings("unchecked")
    T take(Runnable giveUp) throws IOException {
        Object item;
        try {
            item = items.poll(idleTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            giveUp.run();
            throw new IOException("interrupted while reading " + what, e);
        }
        if (item == null) {
            giveUp.run();
            throw new HttpTimeoutException("no bytes of " + what + " for " + Duration.ofNanos(idleTimeoutNanos));
        }
        if (item == END) {
            return null;
        }
        if (item instanceof Throwable failure) {
            throw new IOException(what + " failed mid-body: " + failure.getMessage(), failure);
        }
        return (T) item;
    }
}
