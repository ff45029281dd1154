package io.ringkv.http.server.internal;

import io.ringkv.http.h1.RequestHead;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request/response on an HTTP/1.1 connection.
 *
 * <p>Threading: the body is filled on the event loop before the handler runs and then handed
 * over (the executor submission publishes it). {@link #outcome}, {@link #continuePending},
 * {@link #pump} and {@link #dispatched} are guarded by the connection's {@link ResponseSequencer}.
 * {@link #finish()} may be called from any thread and acts once.
 */
final class Exchange {
    /** First allocation for a body, whatever its declared length; it doubles from there as bytes arrive. */
    private static final int BODY_BYTES_INITIAL = 8 * 1024;
    private static final byte[] NO_BODY = new byte[0];
    /** The largest byte[] a JVM reliably allocates; a body limit above it cannot be buffered anyway. */
    private static final int ARRAY_BYTES_MAX = Integer.MAX_VALUE - 8;

    final RequestHead head;
    /** What the handler's head admission noted for it; set and read on the connection's loop, before dispatch. */
    Object admissionNote;
    /** The head's {@link HeadGate.Decision#onLoop}: the handler runs on the loop. Loop thread only. */
    boolean onLoop;
    /** The most body bytes this request may send, from the handler's head check; the parser enforces the server's. */
    final long bodyBytesMax;
    private final InFlightBudget budget;
    private final boolean admitted;
    private final AtomicBoolean finished = new AtomicBoolean();
    private byte[] body = NO_BODY;
    private int bodyLength;
    private final java.util.concurrent.atomic.AtomicLong reservedBytes = new java.util.concurrent.atomic.AtomicLong();
    private BodyMemoryBudget memory;

    // Guarded by the sequencer.
    EncodedResponse outcome;
    boolean continuePending;
    boolean dispatched;
    ChunkPump pump;

    /**
     * @param budget       the budget a permit was taken from, or {@code null} when the request was not admitted
     * @param bodyBytesMax the most body bytes the request may send ({@link HeadGate.Decision#bodyBytesMax()})
     */
    Exchange(RequestHead head, InFlightBudget budget, long bodyBytesMax) {
        this.head = head;
        this.bodyBytesMax = bodyBytesMax;
        this.budget = budget;
        this.admitted = budget != null;
    }

    boolean admitted() {
        return admitted;
    }

    boolean isHeadRequest() {
        return head != null && head.method().equals("HEAD");
    }

    /**
     * Copies body bytes out of the loop's read buffer, growing the buffer as bytes arrive (doubling,
     * never past the declared length), each growth reserved in {@code memory} first. The parser
     * enforces the body limit. Loop thread.
     *
     * @return false, with nothing copied, when the growth does not fit the memory budget
     */
    boolean appendBody(ByteBuffer data, BodyMemoryBudget memory) {
        int count = data.remaining();
        if (bodyLength + count > body.length) {
            long declared = head.contentLength();
            long doubled = Math.max(BODY_BYTES_INITIAL, 2L * body.length);
            long wanted = Math.max(declared > 0 ? Math.min(declared, doubled) : doubled, (long) bodyLength + count);
            int capacity = (int) Math.min(ARRAY_BYTES_MAX, wanted);
            if (!memory.tryReserve(capacity - body.length)) {
                return false;
            }
            this.memory = memory;
            reservedBytes.addAndGet(capacity - body.length);
            body = Arrays.copyOf(body, capacity);
        }
        data.get(body, bodyLength, count);
        bodyLength += count;
        return true;
    }

    /** Bytes of body received so far. Loop thread. */
    int bodyLength() {
        return bodyLength;
    }

    /** Hands the body over (to the handler) and gives its memory back. */
    byte[] takeBody() {
        byte[] taken = bodyLength == body.length ? body : Arrays.copyOf(body, bodyLength);
        body = NO_BODY;
        bodyLength = 0;
        releaseBodyMemory();
        return taken;
    }

    /** Gives the body's reserved memory back, once (any thread). */
    void releaseBodyMemory() {
        long bytes = reservedBytes.getAndSet(0);
        if (bytes > 0) {
            memory.release(bytes);
        }
    }

    /** The exchange is over (response queued in full, or abandoned): its permit goes back once. */
    void finish() {
        releaseBodyMemory();
        if (finished.compareAndSet(false, true) && admitted) {
            budget.release();
        }
    }
}
