package io.ringkv.http.server;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A pull-based response body whose size is not known up front (e.g. a range scan).
 *
 * <p>Back-pressure: the server pulls the next chunk only when the connection's outbound queue is
 * below its high-water mark, so memory per response stays bounded however long the stream is.
 *
 * <p>Threading: {@link #next()} and {@link #close()} are called on the handler executor, never on
 * an event loop and never concurrently; {@code next} may block briefly (a storage read).
 * {@code close} is called exactly once: after the last chunk, or early when the client goes away
 * or the server shuts down.
 */
public interface ChunkSource extends AutoCloseable {

    /**
     * The next chunk to send (the server takes ownership; an empty buffer is skipped), or
     * {@code null} once the body is complete.
     *
     * @throws IOException when the body cannot be produced; the server then aborts the response
     *                     (on HTTP/1.1: closes the connection without the terminating chunk, so
     *                     the client sees a truncated body rather than a complete wrong one)
     */
    ByteBuffer next() throws IOException;

    @Override
    void close();
}
