package io.ringkv.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bytes waiting to be written on one connection, and the lock-free flusher that writes them.
 *
 * <p>Threading: {@link #enqueue} and {@link #flush} may be called from any thread. Producers add
 * whole groups of buffers to concurrent queues; then the thread that moves {@link #state} from
 * IDLE to FLUSHING owns the batch and the socket writes until it hands the state back, so no lock
 * is ever held while writing. A producer that loses that race returns at once: the owner
 * re-checks the queues after releasing ownership, so no enqueued group is left behind.
 *
 * <pre>
 *   IDLE --CAS by any thread--> FLUSHING --queues empty--> IDLE
 *                                  |--socket full--> AWAITING_WRITABLE --OP_WRITE, CAS by loop--> FLUSHING
 *                                  '--close marker written--> CLOSED          any --discard()--> CLOSED
 * </pre>
 *
 * <p>Urgent groups are taken before normal ones whenever a new batch is formed, so they jump every
 * group that has not yet been taken for writing. No pooling: buffers come from producers and are
 * dropped once written; a producer that reuses its buffers compares {@link #enqueuedTotal} after
 * its enqueue with {@link #writtenTotal} to learn when the queue is done with them.
 */
final class OutboundQueue {

    /** Buffers handed to one gathering write. */
    static final int GATHER_BUFFERS_MAX = 64;

    /** Where the queue writes, and whom it tells about the state of the socket. */
    interface Sink {
        /** A non-blocking gathering write; returns the bytes written (0 when the socket is full). */
        long write(ByteBuffer[] buffers, int offset, int length) throws IOException;

        /** The socket is full: call {@link #onSocketWritable()} once it can take more. */
        void awaitWritable();

        /** Everything before the close marker has been written. */
        void onCloseMarkerWritten();

        /**
         * Queued bytes fell to the low-water mark after reaching the high-water mark, and
         * {@link #isWritable()} answered {@code false} since the last signal.
         */
        void onWritable();

        void onWriteFailed(IOException cause);
    }

    enum State { IDLE, FLUSHING, AWAITING_WRITABLE, CLOSED }

    private static final ByteBuffer[] CLOSE_MARKER = new ByteBuffer[0];

    private final Sink sink;
    private final long highWaterBytes;
    private final long lowWaterBytes;
    private final ConcurrentLinkedQueue<ByteBuffer[]> normal = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ByteBuffer[]> urgent = new ConcurrentLinkedQueue<>();
    private final AtomicReference<State> state = new AtomicReference<>(State.IDLE);
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong enqueuedTotal = new AtomicLong();
    /** Bytes written since the queue began; only the FLUSHING owner adds to it. */
    private volatile long writtenTotal;
    private final AtomicBoolean aboveHighWater = new AtomicBoolean();
    private final AtomicBoolean writableWanted = new AtomicBoolean();
    // Owned by the thread holding FLUSHING; the CAS on state publishes it between owners.
    // The batch is batch[batchStart, batchEnd): written by gathering writes straight from this
    // array, so neither a copy into a gather array nor an iterator per write. It only grows
    // (past GATHER_BUFFERS_MAX when one group is larger); taken afresh once written out.
    private ByteBuffer[] batch = new ByteBuffer[GATHER_BUFFERS_MAX];
    private int batchStart;
    private int batchEnd;
    private boolean closeMarkerTaken;

    OutboundQueue(Sink sink, long highWaterBytes, long lowWaterBytes) {
        this.sink = sink;
        this.highWaterBytes = highWaterBytes;
        this.lowWaterBytes = lowWaterBytes;
    }

    /** Adds a group (atomically with respect to other groups); does not flush. */
    void enqueue(ByteBuffer[] group, boolean jumpQueue) {
        long bytes = 0;
        for (ByteBuffer buffer : group) {
            bytes += buffer.remaining();
        }
        (jumpQueue ? urgent : normal).add(group);
        enqueuedTotal.addAndGet(bytes);
        long queued = queuedBytes.addAndGet(bytes);
        if (queued >= highWaterBytes && aboveHighWater.compareAndSet(false, true)) {
            // The flusher may have drained below low water before the flag was set: re-check.
            signalIfDrained(queuedBytes.get());
        }
    }

    /** Enqueues the marker after which {@link Sink#onCloseMarkerWritten()} fires. */
    void enqueueCloseMarker() {
        normal.add(CLOSE_MARKER);
    }

    void flush() {
        while (state.compareAndSet(State.IDLE, State.FLUSHING)) {
            if (!writeUntilBlocked()) {
                return;
            }
            if (normal.isEmpty() && urgent.isEmpty()) {
                return;
            }
            // A producer enqueued while we were releasing ownership: try to take it back.
        }
    }

    /** The socket can take bytes again (OP_WRITE fired). Loop thread. */
    void onSocketWritable() {
        if (state.compareAndSet(State.AWAITING_WRITABLE, State.FLUSHING) && writeUntilBlocked()) {
            flush();
        }
    }

    /** Drops everything queued; later flushes do nothing. */
    void discard() {
        state.set(State.CLOSED);
        normal.clear();
        urgent.clear();
        queuedBytes.set(0);
    }

    long queuedBytes() {
        return queuedBytes.get();
    }

    /** Bytes of every group enqueued so far, read after the enqueue of interest. */
    long enqueuedTotal() {
        return enqueuedTotal.get();
    }

    /**
     * Bytes written so far. Counted after the written buffers left the batch, so once this count
     * passes the end of a group (in enqueue order; an urgent group enqueued later may go first),
     * the queue holds no reference to that group's buffers any more.
     */
    long writtenTotal() {
        return writtenTotal;
    }

    /**
     * A {@code false} answer arms the writability signal: the drain that follows calls
     * {@link Sink#onWritable()}. A drain nobody asked about (the producer flushed its own bytes
     * and went on) signals nothing, which spares the loop a wake-up per high-water crossing.
     */
    boolean isWritable() {
        if (!aboveHighWater.get()) {
            return true;
        }
        writableWanted.set(true);
        // Re-check after arming: a drain between the first read and the arming may have missed it.
        return !aboveHighWater.get();
    }

    State state() {
        return state.get();
    }

    /**
     * Writes while the socket accepts bytes. Caller holds FLUSHING.
     *
     * @return {@code true} when ownership went back to IDLE, {@code false} when it stays with the
     *         loop (socket full) or the queue is closed
     */
    private boolean writeUntilBlocked() {
        try {
            while (true) {
                if (batchStart == batchEnd && !takeBatch()) {
                    return finishBatchless();
                }
                if (!writeBatch()) {
                    if (state.compareAndSet(State.FLUSHING, State.AWAITING_WRITABLE)) {
                        sink.awaitWritable();
                    }
                    return false;
                }
            }
        } catch (IOException e) {
            state.set(State.CLOSED);
            sink.onWriteFailed(e);
            return false;
        }
    }

    private boolean finishBatchless() {
        if (closeMarkerTaken) {
            state.set(State.CLOSED);
            sink.onCloseMarkerWritten();
            return false;
        }
        return state.compareAndSet(State.FLUSHING, State.IDLE);
    }

    /** Moves whole groups into the batch, urgent ones first. Returns false when nothing was queued. */
    private boolean takeBatch() {
        batchStart = 0;
        batchEnd = 0;
        if (closeMarkerTaken) {
            return false;
        }
        ByteBuffer[] group;
        while (batchEnd < GATHER_BUFFERS_MAX && (group = pollGroup()) != null) {
            if (group == CLOSE_MARKER) {
                closeMarkerTaken = true;
                break;
            }
            if (batchEnd + group.length > batch.length) {
                batch = java.util.Arrays.copyOf(batch, Math.max(2 * batch.length, batchEnd + group.length));
            }
            for (ByteBuffer buffer : group) {
                if (buffer.hasRemaining()) {
                    batch[batchEnd++] = buffer;
                }
            }
        }
        return batchEnd > 0;
    }

    private ByteBuffer[] pollGroup() {
        ByteBuffer[] group = urgent.poll();
        return group != null ? group : normal.poll();
    }

    /** One gathering write. Returns false when the socket did not take everything offered. */
    private boolean writeBatch() throws IOException {
        int count = Math.min(batchEnd - batchStart, GATHER_BUFFERS_MAX);
        long offered = 0;
        for (int i = batchStart; i < batchStart + count; i++) {
            offered += batch[i].remaining();
        }
        long written = 0;
        try {
            written = sink.write(batch, batchStart, count);
        } finally {
            // Written buffers leave the batch (and the array lets go of them) even if the write threw.
            while (batchStart < batchEnd && !batch[batchStart].hasRemaining()) {
                batch[batchStart++] = null;
            }
        }
        if (written > 0) {
            writtenTotal += written; // a single writer: the FLUSHING owner
            signalIfDrained(queuedBytes.addAndGet(-written));
        }
        return written == offered;
    }

    private void signalIfDrained(long queued) {
        // Ordering with isWritable: it arms, then reads the flag; this clears the flag, then
        // disarms. One of the two sees the other's write, so an armed waiter is never missed.
        if (queued <= lowWaterBytes && aboveHighWater.compareAndSet(true, false)
                && writableWanted.getAndSet(false)) {
            sink.onWritable();
        }
    }
}
