package io.ringkv.net;

import java.nio.ByteBuffer;

/**
 * A connection's outbound queue in the hands of one producer ({@link Connection#claimOutbound}).
 * While a producer holds it, the connection's own write methods refuse, and there is no urgent
 * enqueue here: every group leaves in the order it went in through this handle, and nothing
 * overtakes it. So {@link #bytesWritten()} reaching the {@link #bytesEnqueued()} read after an
 * {@link #enqueue} means exactly that the connection is done with that group's buffers, and the
 * producer may reuse them (the TLS record writer pools its record buffers this way).
 *
 * <p>Threading: like the connection's writes, any thread; the holder decides which threads may
 * use it and orders their enqueues itself (the TLS record writer: under its lock).
 */
public interface ExclusiveOutbound {
    /**
     * Appends {@code group} behind everything enqueued before, as one unit; does not flush (the
     * holder calls {@link Connection#flush()}). The buffers belong to the connection until
     * {@link #bytesWritten()} says they were written.
     *
     * @return {@code false} when the connection is closing or closed and the bytes were dropped
     */
    boolean enqueue(ByteBuffer... group);

    /** As {@link Connection#bytesEnqueued()}; -1 where not counted. */
    long bytesEnqueued();

    /** As {@link Connection#bytesWritten()}; -1 where not counted. */
    long bytesWritten();
}
