package io.ringkv.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Carries the calls a coordinator makes to one peer in as few requests as the load allows. While
 * fewer than {@code batchesInFlight} batches to the peer are unanswered, a call leaves at once, in
 * a batch of its own; otherwise it waits for the next answer and then leaves with every call that
 * queued meanwhile, in one request. So a lone call pays no wait, and under load the number of
 * requests (their HTTP/2 frames, signatures, handler runs, and for writes the replica's disk
 * writes) follows the peer's round trips, not the clients' requests: the batch grows with the load.
 *
 * <p>Bounds: a batch holds at most {@code itemsMax} calls and about {@code bytesMax} bytes; a full
 * batch leaves at once, even beyond {@code batchesInFlight}, so nothing queues here without limit
 * (the server's in-flight budget bounds the calls a node takes on). Every call is answered: the
 * {@link BatchCall} completes each one with the peer's answer for it or with the batch's failure.
 *
 * <p>Threading: {@link #add} from any thread; answers arrive on the inter-node client's threads
 * (its event loop, with ringkv's client). {@link #lock} guards only the queue and the in-flight
 * count, never a send or a completion, so continuations never run under it and a call made from
 * one cannot deadlock.
 *
 * @param <T> one queued call
 * @param <A> the peer's answer to a batch
 */
final class PeerBatcher<T, A> {

    /** How a batch goes to the peer and how its answer reaches the batch's callers. */
    interface BatchCall<T, A> {
        /** Sends {@code batch} as one request; must not throw (a failure completes the future). */
        CompletableFuture<A> send(List<T> batch);

        /** Completes every call of {@code batch} from {@code answer}, or with {@code failure} when the batch failed. */
        void complete(List<T> batch, A answer, Throwable failure);
    }

    private final int batchesInFlight;
    private final int itemsMax;
    private final int bytesMax;
    private final BatchCall<T, A> call;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    private List<T> queued = new ArrayList<>();
    /** Guarded by {@link #lock}: what {@link #queued} adds to a request's body. */
    private long queuedBytes;
    /** Guarded by {@link #lock}: batches sent and not yet answered. */
    private int inFlight;
    /** Batches sent, and the calls they carried, since start (metrics). */
    private final java.util.concurrent.atomic.LongAdder batchesSent = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder callsSent = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param batchesInFlight at least 1: batches to this peer unanswered at once before calls queue
     * @param itemsMax        most calls in one batch
     * @param bytesMax        a batch stops growing once its calls' bytes would pass this
     */
    PeerBatcher(int batchesInFlight, int itemsMax, int bytesMax, BatchCall<T, A> call) {
        if (batchesInFlight < 1) {
            throw new IllegalArgumentException("batches in flight must be at least 1, got " + batchesInFlight);
        }
        this.batchesInFlight = batchesInFlight;
        this.itemsMax = itemsMax;
        this.bytesMax = bytesMax;
        this.call = call;
    }

    /** Sends {@code item} now or with the next batch; {@code bytes} is what it adds to a request's body. */
    void add(T item, int bytes) {
        List<T> leaving = null;
        List<T> full = null;
        lock.lock();
        try {
            if (inFlight < batchesInFlight && queued.isEmpty()) {
                inFlight++;
                leaving = List.of(item);
            } else {
                if (!queued.isEmpty() && queuedBytes + bytes > bytesMax) {
                    full = takeQueued();
                }
                queued.add(item);
                queuedBytes += bytes;
                if (queued.size() == itemsMax) {
                    leaving = takeQueued();
                }
            }
        } finally {
            lock.unlock();
        }
        if (full != null) {
            send(full);
        }
        if (leaving != null) {
            send(leaving);
        }
    }

    /** Empties the queue into a batch counted in flight. Holds {@link #lock}. */
    private List<T> takeQueued() {
        List<T> batch = queued;
        queued = new ArrayList<>();
        queuedBytes = 0;
        inFlight++;
        return batch;
    }

    private void send(List<T> batch) {
        batchesSent.increment();
        callsSent.add(batch.size());
        CompletableFuture<A> answer;
        try {
            answer = call.send(batch);
        } catch (RuntimeException e) { // a client already closed, a request it cannot build
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((result, failure) -> {
            // The next batch leaves before this one's callers run on: the peer stays busy meanwhile.
            sendQueued();
            call.complete(batch, result, failure);
        });
    }

    /** One batch answered: sends what queued meanwhile, if anything did. */
    private void sendQueued() {
        List<T> next = null;
        lock.lock();
        try {
            inFlight--;
            if (!queued.isEmpty()) {
                next = takeQueued();
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            send(next);
        }
    }

    /** Batches sent since start: requests to the peer. */
    long batchesSent() {
        return batchesSent.sum();
    }

    /** Calls those batches carried; over {@link #batchesSent}, the mean batch size. */
    long callsSent() {
        return callsSent.sum();
    }

    /** Calls waiting for the next batch (for tests). */
    int queued() {
        lock.lock();
        try {
            return queued.size();
        } finally {
            lock.unlock();
        }
    }
}
