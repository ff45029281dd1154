package io.ringkv.net;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A byte-stream connection owned by one {@link EventLoop} for its whole life.
 *
 * <p>Threading: writing, flushing, closing and the read switches may be called from any thread.
 * Writes are lock-free: a caller appends a group of buffers to the outbound queue, and whichever
 * thread wins the flush writes to the socket with a gathering write while the others return at
 * once. No lock is held across a socket write. Only the owning loop reads the socket.
 *
 * <p>Buffers passed to the write methods belong to the connection from then on: the caller must
 * not change them afterwards. An interface rather than a class so that a TLS connection can wrap
 * a plain one later.
 */
public interface Connection {

    EventLoop loop();

    /**
     * Called from {@link ConnectionHandler#onRead} with {@code slice}, a part of that call's
     * input (or a buffer the handler made from it): returns the same bytes in a buffer that stays
     * valid after {@code onRead} returns, so a handler can pass received bytes on (to a body
     * subscriber) without copying them. A plain connection gives up that region of its read
     * buffer and returns a read-only view, no copy; other implementations may copy. The returned
     * buffer must not be written to.
     */
    default ByteBuffer retain(ByteBuffer slice) {
        ByteBuffer copy = ByteBuffer.allocate(slice.remaining());
        copy.put(slice.duplicate()).flip();
        return copy;
    }

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /**
     * Appends {@code group} to the outbound queue as one unit (no other writer's bytes land in the
     * middle of it) and flushes.
     *
     * @return {@code false} when the connection is closing or closed and the bytes were dropped
     */
    boolean write(ByteBuffer... group);

    /** Like {@link #write} but does not flush; call {@link #flush()} afterwards. */
    boolean enqueue(ByteBuffer... group);

    /**
     * Appends a group ahead of every group not yet taken for writing (for control frames such as
     * an HTTP/2 SETTINGS ACK), then flushes.
     */
    boolean writeUrgent(ByteBuffer... group);

    /** Writes what is queued unless another thread is already doing so; returns at once. */
    void flush();

    /** Bytes enqueued and not yet written to the socket. */
    long queuedBytes();

    /**
     * Bytes of all groups enqueued since the connection opened; -1 where not counted. Read right
     * after an {@code enqueue}, it is at or past the end of the group just enqueued: with
     * {@link #bytesWritten()}, a producer learns when the connection is done with its buffers.
     */
    default long bytesEnqueued() {
        return -1;
    }

    /**
     * Bytes written to the socket since the connection opened; -1 where not counted. Once it
     * reaches the {@link #bytesEnqueued()} read after a group's enqueue, the connection holds no
     * reference to that group's buffers, and the producer may reuse them. That holds as long as
     * groups leave in the order they were enqueued, that is while nobody uses {@link #writeUrgent}
     * on this connection (an urgent group enqueued later may go first): a producer that relies on
     * it {@linkplain #claimOutbound claims the queue} for itself.
     */
    default long bytesWritten() {
        return -1;
    }

    /**
     * Hands the outbound queue to one producer for the rest of the connection's life: from now on
     * groups go in only through the returned handle, in order and never urgently, and
     * {@link #write}, {@link #enqueue} and {@link #writeUrgent} on the connection itself throw
     * {@link IllegalStateException}. Flushing, closing, the counters and reading are unaffected.
     * Once per connection, so a second producer is refused when it is wired up, not when its
     * bytes interleave with the first one's.
     *
     * @throws IllegalStateException if the queue was claimed before
     * @throws UnsupportedOperationException where the connection cannot hand its queue over
     */
    default ExclusiveOutbound claimOutbound() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot hand its outbound queue over");
    }

    /**
     * {@code false} from the moment queued bytes reach the high-water mark until they drain to the
     * low-water mark. A {@code false} answer asks for {@link ConnectionHandler#onWritable}, which
     * announces the switch back; a drain nobody asked about is not announced.
     */
    boolean isWritable();

    /** Stops reading the socket (back-pressure on the peer). Bytes already kept stay kept. */
    void suspendReads();

    /** Starts reading again; kept bytes are presented to the handler before newer ones. */
    void resumeReads();

    /**
     * Orderly close: everything enqueued before this call is written, then output is shut down,
     * remaining input is drained for a bounded time, and the socket is closed. Later writes are
     * dropped and the handler sees no further input.
     */
    void closeAfterFlush();

    /** Abortive close: queued bytes are dropped and the socket is reset now. */
    void abort(Throwable cause);

    /** {@code true} until a close has been requested. */
    boolean isOpen();
}
