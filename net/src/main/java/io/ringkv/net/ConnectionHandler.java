package io.ringkv.net;

import java.nio.ByteBuffer;

/**
 * Protocol logic attached to one {@link Connection}.
 *
 * <p>Threading: every callback runs on the connection's event loop, one at a time, so a handler
 * may keep its parsing state in plain fields. Callbacks must not block: hand work to an executor.
 */
public interface ConnectionHandler {

    /** The connection is registered with its loop; reads start after this returns. */
    void onOpen(Connection connection);

    /**
     * Bytes arrived. {@code input} is the loop's shared read buffer, positioned at the first unread
     * byte: consume what you can by advancing its position. Bytes left unconsumed are kept by the
     * connection and presented again, ahead of newer bytes: at once if this call consumed
     * something (and reads are not suspended), otherwise when more bytes arrive or reads resume.
     * The buffer (and any slice of it) must not be used after this method returns, except for
     * what {@link Connection#retain} returned.
     */
    void onRead(Connection connection, ByteBuffer input);

    /** The peer shut down its output (read end of stream). By default: close once flushed. */
    default void onInputClosed(Connection connection) {
        connection.closeAfterFlush();
    }

    /**
     * The bytes queued for writing fell to the low-water mark after having reached the high-water
     * mark, and a producer saw {@link Connection#isWritable()} answer {@code false} since the last
     * call: producers that paused may resume. Runs on the loop as a task of its own, never from
     * inside the {@code enqueue}, {@code write} or {@code flush} call that drained the queue, so a
     * handler may take locks that producers hold while they write.
     */
    default void onWritable(Connection connection) {
    }

    /**
     * Called exactly once when the connection is closed, for whatever reason.
     *
     * @param cause {@code null} for an orderly close, else what broke or aborted the connection
     */
    void onClosed(Connection connection, Throwable cause);
}
