package io.ringkv.cluster.peer;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The body of a streamed peer answer as a blocking {@link InputStream}. The peer may send only as
 * much as its stream window allows, and the window opens again only as the reader takes bytes
 * ({@link Credit}): so what waits here is bounded by the window, not by the body.
 *
 * <p>A read that gets no byte for the request's timeout fails with {@link HttpTimeoutException}
 * and abandons the stream, so a peer that stalls mid-body costs at most that long per read.
 *
 * <p>Threading: the connection's loop offers chunks and the end; one reader thread at a time reads.
 */
final class PeerBodyStream extends InputStream {
    /** Credit goes back to the peer in steps of at least this many bytes, or when the reader caught up. */
    static final int CREDIT_STEP_BYTES = 64 * 1024;

    /** Gives credit back and abandons the stream, on the connection's loop. */
    interface Credit {
        /** The reader took {@code bytes}: the peer may send as many more on the stream. */
        void consumed(int bytes);

        /**
         * The reader closed the body: credits the connection for what {@code unread} then holds
         * (read from the loop, where every offer happens), and resets the stream if it is still open.
         */
        void closed(java.util.concurrent.atomic.AtomicLong unread);
    }

    private final Credit credit;
    private final DeadlineItems<ByteBuffer> items;
    /**
     * Bytes offered and not yet given back as credit: the loop adds, the reader takes what it
     * credits, and whatever is left when the reader closes goes back to the connection's window
     * (else every body closed before its end would shrink that window for good).
     */
    private final java.util.concurrent.atomic.AtomicLong unread = new java.util.concurrent.atomic.AtomicLong();
    private ByteBuffer current = ByteBuffer.allocate(0);
    private int uncredited;
    private boolean ended;
    private boolean closed;

    PeerBodyStream(Duration idleTimeout, Credit credit) {
        this.items = new DeadlineItems<>(new LinkedBlockingQueue<>(), idleTimeout, "the peer's answer");
        this.credit = credit;
    }

    /** Loop: a chunk of the body (it stays valid: retained from the read buffer, or a copy). */
    void offer(ByteBuffer chunk) {
        unread.addAndGet(chunk.remaining());
        items.put(chunk);
    }

    /** Loop: the body ended. */
    void end() {
        items.end();
    }

    /** Loop: the exchange failed mid-body. */
    void fail(IOException cause) {
        items.fail(cause);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) == -1 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, into.length);
        if (length == 0) {
            return 0;
        }
        if (closed) {
            throw new IOException("the answer's body was closed");
        }
        if (!current.hasRemaining() && !advance()) {
            return -1;
        }
        int count = Math.min(length, current.remaining());
        current.get(into, offset, count);
        uncredited += count;
        if (uncredited >= CREDIT_STEP_BYTES || (!current.hasRemaining() && items.isEmpty())) {
            unread.addAndGet(-uncredited);
            credit.consumed(uncredited);
            uncredited = 0;
        }
        return count;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        credit.closed(unread);
    }

    /** Moves to the next non-empty chunk; false at the end of the body. */
    private boolean advance() throws IOException {
        while (!current.hasRemaining()) {
            if (ended) {
                return false;
            }
            ByteBuffer next;
            try {
                next = items.take(this::close);
            } catch (IOException e) { // timed out, interrupted (closed already) or failed: nothing more to read
                ended = true;
                throw e;
            }
            if (next == null) {
                ended = true;
                return false;
            }
            current = next;
        }
        return true;
    }
}
