package io.ringkv.http.server.internal;

import io.ringkv.http.server.ChunkSource;
import io.ringkv.net.Connection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the responses of one HTTP/1.1 connection on the wire in request order (RFC 9112 §9.3.2:
 * pipelined responses go out in the order the requests came), whichever thread completes them.
 *
 * <p>A response that completes early waits in its exchange until every earlier one is out. A
 * streamed response holds the head of the line until its {@link ChunkPump} is done.
 *
 * <p>Threading: any thread. The monitor guards only the order bookkeeping and moving buffers into
 * the outbound queue ({@link Connection#enqueue}, which never touches the socket); flushing, closing,
 * starting pumps and releasing permits happen after it is released, so no lock is held across a
 * socket write.
 */
final class ResponseSequencer {
    private static final Logger log = LoggerFactory.getLogger(ResponseSequencer.class);
    private static final byte[] CLOSE_FIELD = "Connection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Connection connection;
    private final Executor executor;
    private final Runnable onExchangeDone;
    private final BooleanSupplier serverDraining;
    /** Bounded by the session's pipelining depth. */
    private final ArrayDeque<Exchange> pending = new ArrayDeque<>();
    private boolean closed;

    /**
     * @param onExchangeDone told (on any thread) after exchanges leave the queue
     * @param serverDraining whether the server is shutting down: from then on the last response
     *     before the queue empties carries {@code Connection: close}; read on every emit, so no
     *     per-connection drain signal can arrive late
     */
    ResponseSequencer(Connection connection, Executor executor, Runnable onExchangeDone,
            BooleanSupplier serverDraining) {
        this.connection = connection;
        this.executor = executor;
        this.onExchangeDone = onExchangeDone;
        this.serverDraining = serverDraining;
    }

    synchronized int pendingCount() {
        return pending.size();
    }

    /** Reserves the exchange's place in line. Loop thread, at its request head. */
    synchronized void add(Exchange exchange) {
        if (!closed) {
            pending.add(exchange);
        }
    }

    /** Marks the exchange as dispatched to a handler. Loop thread. */
    synchronized void dispatched(Exchange exchange) {
        exchange.dispatched = true;
    }

    /** RFC 9110 §10.1.1: send 100 Continue once this admitted request is first in line. */
    void requestContinue(Exchange exchange) {
        synchronized (this) {
            exchange.continuePending = true;
        }
        emit();
    }

    /** The exchange's response is ready. Any thread. */
    void respond(Exchange exchange, EncodedResponse response) {
        boolean late;
        synchronized (this) {
            late = closed;
            if (!late) {
                exchange.outcome = response;
            }
        }
        if (late) {
            discard(response);
            exchange.finish();
            onExchangeDone.run();
            return;
        }
        emit();
    }

    /** The exchange's streamed body is done (or abandoned). Pump thread. */
    void streamFinished(Exchange exchange, boolean complete) {
        boolean closeNow;
        synchronized (this) {
            exchange.pump = null;
            boolean wasHead = pending.peekFirst() == exchange;
            if (wasHead) {
                pending.pollFirst();
            }
            closeNow = wasHead && !closed && (exchange.outcome.closeConnection() || !complete);
            closed |= closeNow;
        }
        exchange.finish();
        if (closeNow) {
            connection.closeAfterFlush();
            abandonRest();
        }
        onExchangeDone.run();
        emit();
    }

    /** The outbound queue drained: the streaming response at the head may pull again. Any thread. */
    void wakePump() {
        ChunkPump pump;
        synchronized (this) {
            Exchange head = pending.peekFirst();
            pump = head == null ? null : head.pump;
        }
        if (pump != null) {
            pump.wake();
        }
    }

    /** The connection is gone: abandon everything; handlers still running find out when they finish. Loop thread. */
    void abort() {
        synchronized (this) {
            closed = true;
        }
        abandonRest();
    }

    private void emit() {
        List<Exchange> done = new ArrayList<>(2);
        ChunkPump toStart = null;
        boolean closeNow = false;
        synchronized (this) {
            while (!closed && !pending.isEmpty()) {
                Exchange head = pending.peekFirst();
                if (head.continuePending) {
                    head.continuePending = false;
                    if (head.outcome == null) {
                        connection.enqueue(ResponseEncoder.CONTINUE.duplicate());
                    }
                }
                if (head.outcome == null || head.pump != null) {
                    break;
                }
                EncodedResponse response = head.outcome;
                if (serverDraining.getAsBoolean() && pending.size() == 1
                        && !response.closeConnection()) {
                    response = withClose(response);
                    head.outcome = response;
                }
                connection.enqueue(response.buffers());
                if (response.stream() != null) {
                    head.pump = new ChunkPump(connection, executor, response, head, this);
                    toStart = head.pump;
                    break;
                }
                pending.pollFirst();
                done.add(head);
                if (response.closeConnection()) {
                    closed = closeNow = true;
                }
            }
        }
        connection.flush();
        if (closeNow) {
            connection.closeAfterFlush();
            abandonRest();
        }
        done.forEach(Exchange::finish);
        if (!done.isEmpty()) {
            onExchangeDone.run();
        }
        if (toStart != null) {
            toStart.start();
        }
    }

    /** Releases what the queue still holds once it is closed. */
    private void abandonRest() {
        List<Exchange> rest;
        synchronized (this) {
            rest = new ArrayList<>(pending);
            pending.clear();
        }
        for (Exchange exchange : rest) {
            ChunkPump pump;
            EncodedResponse outcome;
            boolean dispatched;
            synchronized (this) {
                pump = exchange.pump;
                outcome = exchange.outcome;
                dispatched = exchange.dispatched;
            }
            if (pump != null) {
                pump.wake(); // it sees the closed connection, closes its source and finishes
            } else if (outcome != null) {
                discard(outcome);
                exchange.finish();
            } else if (!dispatched) {
                exchange.finish();
            }
            // else a handler is still running: respond() finds the queue closed and cleans up.
        }
        if (!rest.isEmpty()) {
            onExchangeDone.run();
        }
    }

    /** Closes an unsent stream on the executor (ChunkSource.close must not run on an event loop). */
    private void discard(EncodedResponse response) {
        ChunkSource stream = response.stream();
        if (stream == null) {
            return;
        }
        try {
            executor.execute(() -> ResponseEncoder.closeQuietly(stream));
        } catch (RejectedExecutionException e) {
            log.debug("executor refused a body close; closing on {}", Thread.currentThread().getName());
            ResponseEncoder.closeQuietly(stream);
        }
    }

    /** Adds {@code Connection: close} to an encoded head (it ends with the empty line, CRLF CRLF). */
    private static EncodedResponse withClose(EncodedResponse response) {
        ByteBuffer head = response.buffers()[0].duplicate();
        ByteBuffer extended = ByteBuffer.allocate(head.remaining() + CLOSE_FIELD.length - 2);
        head.limit(head.limit() - 2);
        extended.put(head).put(CLOSE_FIELD).flip();
        ByteBuffer[] buffers = response.buffers().clone();
        buffers[0] = extended;
        return new EncodedResponse(buffers, response.stream(), response.chunked(), true);
    }
}
