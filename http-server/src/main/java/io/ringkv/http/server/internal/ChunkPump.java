package io.ringkv.http.server.internal;

import io.ringkv.http.h1.ResponseWriter;
import io.ringkv.http.server.ChunkSource;
import io.ringkv.net.Connection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulls a streamed response body from its {@link ChunkSource} and writes it, but only while the
 * connection's outbound queue is under its high-water mark: memory per response stays bounded by
 * the water mark plus one chunk, however slowly the client reads.
 *
 * <pre>
 *   RUNNING --queue above high water--> AWAITING_DRAIN --wake() (drained, or connection closed)--> RUNNING
 *   RUNNING --last chunk / failure / connection gone--> DONE
 * </pre>
 *
 * <p>Threading: runs on the handler executor, one run at a time (only the thread that moved the
 * state to RUNNING runs), so {@code next()} and {@code close()} are never concurrent. {@link #wake()}
 * may be called from any thread.
 */
final class ChunkPump implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ChunkPump.class);

    /**
     * Chunks per executor task before yielding the thread to other requests. The chunks of one
     * run are enqueued without flushing and leave in one flush at the end (gathering writes), so
     * a stream of small chunks (a range scan sends one per record) costs a few system calls per
     * run instead of one per chunk.
     */
    static final int CHUNKS_PER_RUN_MAX = 256;

    enum State { RUNNING, AWAITING_DRAIN, DONE }

    private final Connection connection;
    private final Executor executor;
    private final ChunkSource source;
    private final boolean chunked;
    private final Exchange exchange;
    private final ResponseSequencer sequencer;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);

    ChunkPump(Connection connection, Executor executor, EncodedResponse response, Exchange exchange,
              ResponseSequencer sequencer) {
        this.connection = connection;
        this.executor = executor;
        this.source = response.stream();
        this.chunked = response.chunked();
        this.exchange = exchange;
        this.sequencer = sequencer;
    }

    void start() {
        submit();
    }

    /** The queue drained or the connection went away: resume if waiting. */
    void wake() {
        if (state.compareAndSet(State.AWAITING_DRAIN, State.RUNNING)) {
            submit();
        }
    }

    @Override
    public void run() {
        for (int i = 0; i < CHUNKS_PER_RUN_MAX; i++) {
            if (!step()) {
                return;
            }
        }
        connection.flush();
        submit();
    }

    /** Pulls and writes one chunk; returns whether this run should go on. */
    private boolean step() {
        if (!connection.isOpen()) {
            finish(false);
            return false;
        }
        ByteBuffer chunk;
        try {
            chunk = source.next();
        } catch (IOException | RuntimeException e) {
            // Close without the last chunk: the client must see a truncated body, not a complete
            // wrong one. What was queued still goes out, so the truncation point is visible.
            log.warn("streamed body failed; closing {} without the last chunk", connection, e);
            connection.closeAfterFlush();
            finish(false);
            return false;
        }
        if (chunk == null) {
            if (chunked) {
                connection.write(ResponseWriter.lastChunk());
            }
            finish(true);
            return false;
        }
        if (!chunk.hasRemaining()) {
            return true;
        }
        boolean queued = chunked
                ? connection.enqueue(ResponseWriter.chunkHeader(chunk.remaining()), chunk, ResponseWriter.chunkTrailer())
                : connection.enqueue(chunk);
        if (!queued) {
            finish(false);
            return false;
        }
        if (connection.isWritable()) {
            return true;
        }
        // Enqueued bytes count towards the high-water mark: flush them, or the drain we are about
        // to wait for would never come.
        connection.flush();
        return !awaitDrain();
    }

    /** Returns true when parked; false when the drain already happened and this run keeps the work. */
    private boolean awaitDrain() {
        state.set(State.AWAITING_DRAIN);
        // The drain (or a close) may have happened between the writability check and the set.
        boolean missedSignal = connection.isWritable() || !connection.isOpen();
        return !(missedSignal && state.compareAndSet(State.AWAITING_DRAIN, State.RUNNING));
    }

    private void submit() {
        try {
            executor.execute(this);
        } catch (RejectedExecutionException e) {
            log.warn("handler executor rejected a body pull; aborting {}", connection);
            connection.abort(e);
            finish(false);
        }
    }

    private void finish(boolean complete) {
        state.set(State.DONE);
        ResponseEncoder.closeQuietly(source);
        sequencer.streamFinished(exchange, complete);
    }
}
