package io.ringkv.net.tls;

import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS over a plain {@link Connection}, with an {@link SSLEngine}: it is the plain connection's
 * handler, and the application's {@link Connection}. The handshake runs first; once it is done
 * the negotiated ALPN protocol picks the application handler ({@code handlers}), which is then
 * opened and sees only plaintext.
 *
 * <p>Threading: handler callbacks come from the plain connection's loop; {@code unwrap} state
 * ({@code plainIn}) is confined to it. Writes may come from any thread: {@code writeLock} makes
 * wrap + enqueue one step, so TLS records reach the outbound queue in sequence-number order; the
 * socket write ({@link Connection#flush}) happens after the lock is released. Because records are
 * sequenced, {@link #writeUrgent} cannot jump the queue here and writes in order.
 * Delegated handshake tasks (certificate checks) run inline on the loop: short, but CPU work.
 * Buffers: heap, not pooled (one packet buffer per write group, one plaintext buffer per connection).
 */
public final class TlsConnection implements Connection, ConnectionHandler {
    private static final Logger log = LoggerFactory.getLogger(TlsConnection.class);
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** Bound on wrap/unwrap steps per handshake round, so a misbehaving engine cannot spin the loop. */
    private static final int HANDSHAKE_STEPS_MAX = 64;

    private final SSLEngine engine;
    private final Function<String, ConnectionHandler> handlers;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final CompletableFuture<SSLSession> handshake = new CompletableFuture<>();
    private volatile Connection plain;
    private volatile ConnectionHandler application;
    private volatile boolean suspended;
    private ByteBuffer plainIn;

    /**
     * @param engine   configured (client mode, parameters, ALPN offers) and not yet started
     * @param handlers the application handler for the negotiated ALPN protocol ("" when none)
     */
    public TlsConnection(SSLEngine engine, Function<String, ConnectionHandler> handlers) {
        this.engine = engine;
        this.handlers = handlers;
        this.plainIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    }

    /** Completes with the session once the handshake finished and the application handler was opened. */
    public CompletableFuture<SSLSession> handshake() {
        return handshake;
    }

    // ---- ConnectionHandler of the plain connection (loop) ----

    @Override
    public void onOpen(Connection connection) {
        plain = connection;
        try {
            engine.beginHandshake();
            advanceHandshake();
        } catch (IOException e) {
            failHandshake(e);
        }
    }

    @Override
    public void onRead(Connection connection, ByteBuffer input) {
        try {
            deliverPlaintext(); // what the application left last time comes first
            while (input.hasRemaining() && !suspended) {
                SSLEngineResult result = unwrap(input);
                if (result.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                    break; // a partial record stays in input; net presents it again with more bytes
                }
                if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                    input.position(input.limit());
                    break;
                }
                if (!handshake.isDone() || result.getHandshakeStatus() != HandshakeStatus.NOT_HANDSHAKING) {
                    advanceHandshake(); // also TLS 1.3 post-handshake messages (tickets, key updates)
                }
                deliverPlaintext();
            }
        } catch (IOException e) {
            log.debug("TLS failure on {}", connection, e);
            failHandshake(e);
            connection.abort(e);
        }
    }

    @Override
    public void onInputClosed(Connection connection) {
        ConnectionHandler app = application;
        if (app != null) {
            app.onInputClosed(this);
        } else {
            connection.closeAfterFlush();
        }
    }

    @Override
    public void onWritable(Connection connection) {
        ConnectionHandler app = application;
        if (app != null) {
            app.onWritable(this);
        }
    }

    @Override
    public void onClosed(Connection connection, Throwable cause) {
        failHandshake(cause != null ? cause : new SSLException("connection closed during the TLS handshake"));
        ConnectionHandler app = application;
        if (app != null) {
            app.onClosed(this, cause); // only an opened application handler learns of the close
        }
    }

    private SSLEngineResult unwrap(ByteBuffer input) throws SSLException {
        while (true) {
            SSLEngineResult result = engine.unwrap(input, plainIn);
            if (result.getStatus() != SSLEngineResult.Status.BUFFER_OVERFLOW) {
                return result;
            }
            ByteBuffer larger = ByteBuffer.allocate(plainIn.capacity() + engine.getSession().getApplicationBufferSize());
            plainIn.flip();
            larger.put(plainIn);
            plainIn = larger;
        }
    }

    private void deliverPlaintext() {
        ConnectionHandler app = application;
        if (app == null || plainIn.position() == 0) {
            return;
        }
        plainIn.flip();
        app.onRead(this, plainIn);
        plainIn.compact(); // bytes the application left are presented again, ahead of newer ones
    }

    /** Loop: runs tasks and wraps handshake records until the engine waits for the peer or is done. */
    private void advanceHandshake() throws IOException {
        for (int step = 0; step < HANDSHAKE_STEPS_MAX; step++) {
            HandshakeStatus status = engine.getHandshakeStatus();
            switch (status) {
                case NEED_TASK -> runDelegatedTasks();
                case NEED_WRAP -> writeRecords(new ByteBuffer[] {EMPTY});
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    return;
                }
                case FINISHED, NOT_HANDSHAKING -> {
                    openApplication();
                    return;
                }
            }
        }
        throw new SSLException("TLS handshake did not settle within " + HANDSHAKE_STEPS_MAX + " steps");
    }

    private void runDelegatedTasks() {
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
            task.run();
        }
    }

    private void openApplication() {
        if (application != null || handshake.isDone()) {
            return;
        }
        String protocol = engine.getApplicationProtocol();
        ConnectionHandler app = handlers.apply(protocol == null ? "" : protocol);
        application = app;
        app.onOpen(this);
        handshake.complete(engine.getSession());
    }

    private void failHandshake(Throwable cause) {
        if (!handshake.isDone()) {
            handshake.completeExceptionally(cause);
        }
    }

    // ---- Connection for the application (any thread) ----

    /** The ALPN protocol the server selected, "" for none (valid once {@link #handshake()} completed). */
    public String applicationProtocol() {
        String protocol = engine.getApplicationProtocol();
        return protocol == null ? "" : protocol;
    }

    /** The negotiated session (valid once {@link #handshake()} completed). */
    public SSLSession session() {
        return engine.getSession();
    }

    @Override
    public EventLoop loop() {
        return plain.loop();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return plain.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return plain.localAddress();
    }

    @Override
    public boolean write(ByteBuffer... group) {
        boolean accepted = enqueue(group);
        plain.flush();
        return accepted;
    }

    @Override
    public boolean enqueue(ByteBuffer... group) {
        try {
            return writeRecords(group);
        } catch (SSLException e) {
            plain.abort(e);
            return false;
        }
    }

    @Override
    public boolean writeUrgent(ByteBuffer... group) {
        return write(group);
    }

    /** Wraps {@code group} into records and enqueues them in one step under the write lock. */
    private boolean writeRecords(ByteBuffer[] group) throws SSLException {
        List<ByteBuffer> records = new ArrayList<>(2);
        writeLock.lock();
        try {
            do {
                ByteBuffer packet = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
                SSLEngineResult result = engine.wrap(group, packet);
                if (result.getStatus() == SSLEngineResult.Status.CLOSED && packet.position() == 0) {
                    return false;
                }
                packet.flip();
                if (packet.hasRemaining()) {
                    records.add(packet);
                }
                if (result.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                    runDelegatedTasks();
                }
            } while (hasRemaining(group));
            return records.isEmpty() || plain.enqueue(records.toArray(ByteBuffer[]::new));
        } finally {
            writeLock.unlock();
            if (!records.isEmpty() && !handshake.isDone()) {
                plain.flush(); // handshake records go out now (no lock held here)
            }
        }
    }

    private static boolean hasRemaining(ByteBuffer[] group) {
        for (ByteBuffer buffer : group) {
            if (buffer.hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void flush() {
        plain.flush();
    }

    @Override
    public long queuedBytes() {
        return plain.queuedBytes();
    }

    @Override
    public boolean isWritable() {
        return plain.isWritable();
    }

    @Override
    public void suspendReads() {
        suspended = true;
        plain.suspendReads();
    }

    @Override
    public void resumeReads() {
        suspended = false;
        plain.resumeReads();
    }

    /** RFC 8446 §6.1: close_notify first, then the orderly close of the plain connection. */
    @Override
    public void closeAfterFlush() {
        engine.closeOutbound();
        try {
            writeRecords(new ByteBuffer[] {EMPTY});
        } catch (SSLException e) {
            log.debug("could not write close_notify on {}", plain, e);
        }
        plain.closeAfterFlush();
    }

    @Override
    public void abort(Throwable cause) {
        plain.abort(cause);
    }

    @Override
    public boolean isOpen() {
        return plain.isOpen();
    }

    @Override
    public String toString() {
        return "TLS(" + plain + ")";
    }
}
